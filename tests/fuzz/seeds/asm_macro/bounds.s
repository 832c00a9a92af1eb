.macro again depth
.if \depth < 30
	again \depth+1
.endif
.endm
.rept 3
	again 0
.endr
