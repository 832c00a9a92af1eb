	.amdgcn_target "amdgcn-amd-amdhsa--gfx906:xnack-"
	.text
	.globl	b
	.p2align	8
	.type	b,@function
b:
	// hand-written: bare VALU mnemonics, as a person types them; the assembler
	// picks the 4-byte VOP1/VOP2/VOPC form where the operands allow it
	v_mov_b32 v1, v0
	v_mov_b32 v2, 0x12345
	v_add_f32 v3, v1, v2
	v_add_f32 v4, s0, v2
	v_add_f32 v5, v1, s0
	v_add_f32 v6, -v1, v2
	v_add_u32 v7, v1, v2 clamp
	v_cmp_eq_u32 vcc, v1, v2
	v_cmp_eq_u32 s[2:3], v1, v2
	v_cndmask_b32 v8, v1, v2, vcc
	v_cndmask_b32 v9, v1, v2, s[2:3]
	v_add_co_u32 v10, vcc, v1, v2
	v_add_co_u32 v11, s[4:5], v1, v2
	v_addc_co_u32 v12, vcc, v1, v2, vcc
	v_fma_f32 v13, v1, v2, v3
	v_nop
	v_cvt_f32_u32 v14, v1
	v_mul_lo_u32 v15, v1, v2
	.align32 16, 0xbf800000	// Hygon's kernels align MMAC groups so: s_nop words
	s_endpgm
.Lfunc_end0:
	.size	b, .Lfunc_end0-b

	.rodata
	.p2align	6
	.amdhsa_kernel b
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 6
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name:           b
    .private_segment_fixed_size: 0
    .sgpr_count:     10
    .symbol:         b.kd
    .vgpr_count:     16
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx906:xnack-
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
