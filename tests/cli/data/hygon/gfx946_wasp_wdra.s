// A gfx946 (SB) wave-specialised GEMM in the shape Hygon's Triton builds
// with WASP and WDRA (HYGON-AI/triton-das @bb697091): three roles of four
// waves each, Load-first (third_party/hcu/lib/TritonHCUToLLVM/
// ConvertWarpSpecializeToLLVM.cpp: a loader, MMA main, MMA tail; a switch
// on the wave id, role p taking waves 4p..4p+3; each role's first
// instruction s_set_vgpr_size N; the default case only syncs and returns),
// the quotas of the fork's own test (third_party/hcu/test/
// test_wasp_compiler.py: (16, 124, 124), sum 264, a multiple of 4 x 3), the
// backend's three comments in wasp.py's format, and the "s_trap 0xff wdra
// prologue with s_set_vgpr_size per branch" the lowering's comment
// describes.  What no public text shows, written here as an assumption:
// the prologue's order, the wave id as v0 / 64 in s12 (tilelang-hygon's
// lowering), the compares of the dispatch, the barriers' SGPR operands.
// Written for treg's tests; upstream LLVM cannot assemble it.
//
// Figures by hand (tests/cli/test_hygon_targets.sh checks them):
//   roles (their s_set_vgpr_size: the last on each path), by wave id:
//     waves 0-3, size 16: peak live 2 (v0 until v1 is made from it, then
//       v1), highest v1;
//     waves 4-7, size 124: peak live 25 at the second LDS read: v1, the
//       accumulators v[100:115] (16), v[116:119] and v[120:123] being
//       written; highest v123;
//     waves 8-11, size 124: peak live 17 likewise with 8 accumulators;
//       highest v123.
//   Before the dispatch (the prologue, the compares, the default case):
//     v0 only: peak 1, highest v0.
//   One wave of each role per SIMD: 16 + 124 + 124 = 264 of 512 VGPRs:
//     1 workgroup, 3 waves per SIMD, limited by the roles' sizes; the
//     descriptor's 88 VGPRs (264 / 3) alone would have said 5.
//   The backend's comments match the roles by wave id: available 16, 124,
//     124; needs 2, 118, 121; no spills.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx946:xnack-"
	.globl	wasp_gemm_kernel
	.p2align	8
	.type	wasp_gemm_kernel,@function
wasp_gemm_kernel:
	s_set_vgpr_size 16
	s_set_vgpr_size 124
	s_set_vgpr_size 124
	s_trap 0xff
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	v_readfirstlane_b32 s12, v0
	s_lshr_b32 s12, s12, 6
	s_mov_b32 s13, 0
	s_mov_b32 s14, 0
	s_mov_b32 s15, 12
	s_cmp_gt_u32 s12, 3
	s_cbranch_scc1 .LBB0_2
; %bb.1:
	s_set_vgpr_size 16
	v_lshlrev_b32_e32 v1, 4, v0
	s_mov_b32 s16, 8
	s_ebarrier_sync s14, s15
.LBB0_8:
	s_waitcnt lgkmcnt(0)
	s_mov_b32 m0, s13
	buffer_load_dwordx4 v1, s[4:7], 0 offen lds
	v_add_u32_e32 v1, 64, v1
	s_waitcnt vmcnt(0)
	s_ebarrier_arrive s14, s15
	s_sub_u32 s16, s16, 1
	s_cmp_lg_u32 s16, 0
	s_cbranch_scc1 .LBB0_8
	s_endpgm
.LBB0_2:
	s_cmp_gt_u32 s12, 7
	s_cbranch_scc1 .LBB0_4
; %bb.3:
	s_set_vgpr_size 124
	s_branch .LBB0_5
.LBB0_5:
	s_ebarrier_sync s14, s15
	v_lshlrev_b32_e32 v1, 6, v0
	v_mov_b32_e32 v100, 0
	v_mov_b32_e32 v101, 0
	v_mov_b32_e32 v102, 0
	v_mov_b32_e32 v103, 0
	v_mov_b32_e32 v104, 0
	v_mov_b32_e32 v105, 0
	v_mov_b32_e32 v106, 0
	v_mov_b32_e32 v107, 0
	v_mov_b32_e32 v108, 0
	v_mov_b32_e32 v109, 0
	v_mov_b32_e32 v110, 0
	v_mov_b32_e32 v111, 0
	v_mov_b32_e32 v112, 0
	v_mov_b32_e32 v113, 0
	v_mov_b32_e32 v114, 0
	v_mov_b32_e32 v115, 0
	s_mov_b32 s16, 8
.LBB0_6:
	s_ebarrier_sync s14, s15
	ds_read_matrix_format v[116:119], s13 offset:0 element:0x2 row:0x2 col:0x1 alt:0x0
	ds_read_matrix_trans_format v[120:123], s13 offset:1024 element:0x2 row:0x2 col:0x1 alt:0x0
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x16_f16 v[100:103], v[116:117], v[120:121], v[100:103]
	v_mmac_f32_16x16x16_f16 v[104:107], v[116:117], v[122:123], v[104:107]
	v_mmac_f32_16x16x16_f16 v[108:111], v[118:119], v[120:121], v[108:111]
	v_mmac_f32_16x16x16_f16 v[112:115], v[118:119], v[122:123], v[112:115]
	s_sub_u32 s16, s16, 1
	s_cmp_lg_u32 s16, 0
	s_cbranch_scc1 .LBB0_6
	;;#ASMSTART
	; mma_epilogue_partition_1
	;;#ASMEND
	global_store_dwordx4 v1, v[100:103], s[8:9]
	global_store_dwordx4 v1, v[104:107], s[8:9] offset:16
	global_store_dwordx4 v1, v[108:111], s[8:9] offset:32
	global_store_dwordx4 v1, v[112:115], s[8:9] offset:48
	s_endpgm
.LBB0_4:
	s_cmp_gt_u32 s12, 11
	s_cbranch_scc1 .LBB0_7
; %bb.9:
	s_set_vgpr_size 124
	s_ebarrier_sync s14, s15
	v_lshlrev_b32_e32 v1, 5, v0
	v_mov_b32_e32 v100, 0
	v_mov_b32_e32 v101, 0
	v_mov_b32_e32 v102, 0
	v_mov_b32_e32 v103, 0
	v_mov_b32_e32 v104, 0
	v_mov_b32_e32 v105, 0
	v_mov_b32_e32 v106, 0
	v_mov_b32_e32 v107, 0
	s_mov_b32 s16, 8
.LBB0_10:
	s_ebarrier_sync s14, s15
	ds_read_matrix_format v[116:119], s13 offset:2048 element:0x2 row:0x2 col:0x1 alt:0x0
	ds_read_matrix_trans_format v[120:123], s13 offset:3072 element:0x2 row:0x2 col:0x1 alt:0x0
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x16_f16 v[100:103], v[116:117], v[120:121], v[100:103]
	v_mmac_f32_16x16x16_f16 v[104:107], v[118:119], v[122:123], v[104:107]
	s_sub_u32 s16, s16, 1
	s_cmp_lg_u32 s16, 0
	s_cbranch_scc1 .LBB0_10
	;;#ASMSTART
	; mma_epilogue_partition_2
	;;#ASMEND
	global_store_dwordx4 v1, v[100:103], s[8:9] offset:64
	global_store_dwordx4 v1, v[104:107], s[8:9] offset:80
	s_endpgm
.LBB0_7:
	s_ebarrier_sync s14, s15
	s_endpgm
.Lfunc_end0:
	.size	wasp_gemm_kernel, .Lfunc_end0-wasp_gemm_kernel
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel wasp_gemm_kernel
		.amdhsa_group_segment_fixed_size 8192
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 88
		.amdhsa_next_free_sgpr 17
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 0
	.end_amdhsa_kernel
	.text
; Kernel info:
; NumSgprs: 19
; NumVgprs: 88
; BranchSpillInfo: (false, false, false)
; BranchRealOrSuggestedVgprs: (2, 118, 121)
; BranchAvailableVgprs: (16, 124, 124)
	.amdgpu_metadata
---
amdhsa.kernels:
  - .group_segment_fixed_size: 8192
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 768
    .name:           wasp_gemm_kernel
    .private_segment_fixed_size: 0
    .sgpr_count:     19
    .sgpr_spill_count: 0
    .symbol:         wasp_gemm_kernel.kd
    .vgpr_count:     88
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--gfx946:xnack-'
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
