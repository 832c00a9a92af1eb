.macro LOOP n
L\@: s_nop \n
.endm
.macro TWO
	LOOP 1
	LOOP (2)
.endm
	LOOP 0
	TWO
.rept 2
	LOOP \@
.endr
