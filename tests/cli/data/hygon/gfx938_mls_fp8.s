// A gfx938 (NMZ) kernel in the shape of Hygon's Triton's MLS v1 loop with
// fp8 MMAC (HYGON-AI/triton-das: gfx938 has MLS version 1, MAMC_FP8 and the
// f32 x8 MMAC, TargetUtils.cpp@0698445c:103-127): matrix_load_* into LDS
// (no bypass on gfx938: waited with vmcnt), ds_read_m32x16_b16 back out
// (LdsReadModel.h), a buffer_load ... lds copy at M0, and
// v_mmac_f32_16x16x32_fp8_fp8 (A and B 2 VGPRs, C = D 4).  Written for
// treg's tests; upstream LLVM cannot assemble it.
//
// Figures by hand (tests/cli/test_hygon_targets.sh checks them):
//   VGPRs: v0..v178 named -> NumVgprs 179; the budget is 768 per SIMD (as
//     gfx936: -support-768-vgprs): waves = min(10, floor(768 / 180)) = 4, as
//     the fork's gfx936 trailer for 179 VGPRs says; 5 waves need
//     floor(768 / 5) = 153 -> 152: 27 to free.
//   Peak live 19, at the second ds_read_m32x16_b16 (+0x6c): v1 (LDS
//     address), v2 (global offset), v178 (the loop's row offset), the
//     accumulators v[170:177] (8), the first fragment v[160:163] and the
//     second, v[164:167], being written (4 + 4).
//   SGPRs: s0..s13 -> 14 numbered + VCC = 16.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx938:xnack-"
	.globl	mls_fp8_kernel
	.p2align	8
	.type	mls_fp8_kernel,@function
mls_fp8_kernel:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx4 s[8:11], s[0:1], 0x10
	v_lshlrev_b32_e32 v1, 3, v0
	v_lshlrev_b32_e32 v2, 4, v0
	v_mov_b32_e32 v178, 0
	s_mov_b32 s12, 0
	s_mov_b32 s13, 8
	v_mov_b32_e32 v170, 0
	v_mov_b32_e32 v171, 0
	v_mov_b32_e32 v172, 0
	v_mov_b32_e32 v173, 0
	v_mov_b32_e32 v174, 0
	v_mov_b32_e32 v175, 0
	v_mov_b32_e32 v176, 0
	v_mov_b32_e32 v177, 0
.LBB0_1:
	s_waitcnt lgkmcnt(0)
	matrix_load_32x16_b16 s[4:7], s12, moffset:0, lds
	s_mov_b32 m0, s12
	buffer_load_dwordx4 v178, s[8:11], 0 offen lds
	s_waitcnt vmcnt(0)
	s_barrier
	ds_read_m32x16_b16 v[160:163], v1 offset:0
	ds_read_m32x16_b16 v[164:167], v1 offset:512
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x32_fp8_fp8 v[170:173], v[160:161], v[164:165], v[170:173]
	v_mmac_f32_16x16x32_fp8_fp8 v[174:177], v[162:163], v[164:165], v[174:177]
	v_add_u32_e32 v178, 64, v178
	s_sub_u32 s13, s13, 1
	s_cmp_lg_u32 s13, 0
	s_cbranch_scc1 .LBB0_1
	global_store_dwordx4 v2, v[170:173], s[10:11]
	global_store_dwordx4 v2, v[174:177], s[10:11] offset:16
	s_endpgm
.Lfunc_end0:
	.size	mls_fp8_kernel, .Lfunc_end0-mls_fp8_kernel
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mls_fp8_kernel
		.amdhsa_group_segment_fixed_size 4096
		.amdhsa_kernarg_size 32
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 179
		.amdhsa_next_free_sgpr 14
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 0
	.end_amdhsa_kernel
	.text
; Kernel info:
; NumSgprs: 16
; NumVgprs: 179
; SGPRBlocks: 1
; VGPRBlocks: 44
; Occupancy: 4
