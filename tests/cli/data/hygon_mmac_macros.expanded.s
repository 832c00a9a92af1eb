// hygon_mmac_macros.s written out by hand: no macro, no .set, plain registers.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx936"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	v_lshlrev_b32_e32 v24, 4, v0
	v_lshlrev_b32_e32 v25, 3, v0
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	s_mov_b32 s10, 8
.LBB0_1:
	ds_read_b64 v[16:17], v24
	ds_read_b64 v[18:19], v24 offset:256
	ds_read_b128 v[20:23], v25
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x16_f16 v[0:3], v[16:17], v[20:21], v[0:3]
	v_mmac_f32_16x16x16_f16 v[4:7], v[16:17], v[22:23], v[4:7]
	v_mmac_f32_16x16x16_f16 v[8:11], v[18:19], v[20:21], v[8:11]
	v_mmac_f32_16x16x16_f16 v[12:15], v[18:19], v[22:23], v[12:15]
	s_sub_u32 s10, s10, 1
	s_cmp_lg_u32 s10, 0
	s_cbranch_scc1 .LBB0_1
	s_waitcnt lgkmcnt(0)
	global_store_dwordx4 v24, v[0:3], s[4:5]
	global_store_dwordx4 v24, v[4:7], s[4:5] offset:16
	global_store_dwordx4 v24, v[8:11], s[4:5] offset:32
	global_store_dwordx4 v24, v[12:15], s[4:5] offset:48
	s_endpgm
.Lfunc_end0:
	.size	k, .Lfunc_end0-k

	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 26
		.amdhsa_next_free_sgpr 11
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
    .name:           k
    .private_segment_fixed_size: 0
    .sgpr_count:     15
    .symbol:         k.kd
    .vgpr_count:     26
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx936
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
