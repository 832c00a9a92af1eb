.set vgprValuC, 8
.set i, 0
.rept 4
	v_mov_b32 v[vgprValuC+i:vgprValuC+i+1], acc[i]
	.set i, i+1
.endr
.irp r, 0, 2 4
	v_mov_b32 v\r, s[\r:\r+1]
.endr
.irpc c, 135
	s_mov_b32 s\c, 0
.endr
