.macro ADD dst, src=v1, imm=0
	v_add_u32 \dst, \src, \imm
.endm
.macro OP name:req, rest:vararg
	\name\()_b32 \rest
.endm
	ADD v2
	ADD v3 v4 5
	ADD imm=9, dst=v7
	ADD v8, , 2 + 3
	OP v_mov, v0, v1
.purgem OP
