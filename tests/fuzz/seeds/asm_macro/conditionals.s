.set debug, 0
.set MT0, 64
.if debug
	.if nosuch
	.endif
.elseif MT0 == 32 || debug
	s_nop 2
.elseif MT0 >= 64 && !debug
	s_nop 3
.else
	s_nop 5
.endif
.ifdef MT0
.ifndef MT1
.macro UPTO n, b
.ifb \b
.exitm
.endif
.ifc \n, 1
	s_nop \b
.endif
.endm
	UPTO 1, 4
	UPTO 2
.endif
.endif
.ifeqs "a", "a"
.endif
