// A gfx946 (SB) kernel in the shape Hygon's Triton gives its MLS matmul
// loop (HYGON-AI/triton-das: MlsOpToLLVM.cpp lowers tt.load to matrix_load_*
// into LDS and ds_read_matrix_* back out; MMAC accumulators in VGPRs, f32 and,
// gfx946 only, 16-bit): written for treg's tests, the operand forms those of
// composable_kernel-das (hcu_matrix_addressing.hpp) and flash-attention3
// (shaobo_instr.h).  Upstream LLVM cannot assemble it.
//
// Figures by hand (tests/cli/test_hygon_targets.sh checks them):
//   VGPRs: v0..v213 named -> NumVgprs 214; the budget is 512 per SIMD:
//     waves = min(10, floor(512 / roundup(214, 4) = 216)) = 2; 3 waves need
//     floor(512 / 3) = 170 -> 168 (granule 4): 46 to free.
//   Peak live 15, from the second LDS read (+0x50) through the first
//     v_mmac: v1 (store address), the accumulators v[200:203] and
//     v[204:205], the fragments v[206:209] and v[210:213].
//   SGPRs: s0..s11 -> 12 numbered + VCC (2, .amdhsa_reserve_vcc's default;
//     no flat scratch, xnack-) = 14, as Hygon's trailers count them.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx946:xnack-"
	.globl	mls_mmac_kernel
	.p2align	8
	.type	mls_mmac_kernel,@function
mls_mmac_kernel:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	v_lshlrev_b32_e32 v1, 4, v0
	s_mov_b32 s10, 0
	s_mov_b32 s11, 4
	v_mov_b32_e32 v200, 0
	v_mov_b32_e32 v201, 0
	v_mov_b32_e32 v202, 0
	v_mov_b32_e32 v203, 0
	v_mov_b32_e32 v204, 0
	v_mov_b32_e32 v205, 0
.LBB0_1:
	s_waitcnt lgkmcnt(0)
	matrix_load_32x16_b16 s[4:7], s10 moffset:0 bps lds
	s_waitcnt_vbcnt 0
	s_barrier
	ds_read_matrix_format v[206:209], s10 offset:0 element:0x2 row:0x2 col:0x1 alt:0x0
	ds_read_matrix_trans_format v[210:213], s10 offset:1024 element:0x2 row:0x2 col:0x1 alt:0x0
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x16_f16 v[200:203], v[206:207], v[210:211], v[200:203]
	v_mmac_f32_16x16x16_f16 v[200:203], v[208:209], v[212:213], v[200:203]
	v_mmac_16x16x16_f16 v[204:205], v[206:207], v[210:211], v[204:205]
	s_sub_u32 s11, s11, 1
	s_cmp_lg_u32 s11, 0
	s_cbranch_scc1 .LBB0_1
	global_store_dwordx4 v1, v[200:203], s[8:9]
	global_store_dwordx2 v1, v[204:205], s[8:9] offset:16
	s_endpgm
.Lfunc_end0:
	.size	mls_mmac_kernel, .Lfunc_end0-mls_mmac_kernel
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mls_mmac_kernel
		.amdhsa_group_segment_fixed_size 2048
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 214
		.amdhsa_next_free_sgpr 12
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 0
		.amdhsa_matrix_excp 0
		.amdhsa_cancellation_excp 0
	.end_amdhsa_kernel
	.text
; Kernel info:
; NumSgprs: 14
; NumVgprs: 214
; ScratchSize: 0
; SGPRBlocks: 1
; VGPRBlocks: 53
; Occupancy: 2
	.amdgpu_metadata
---
amdhsa.kernels:
  - .group_segment_fixed_size: 2048
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 256
    .name:           mls_mmac_kernel
    .private_segment_fixed_size: 0
    .sgpr_count:     14
    .sgpr_spill_count: 0
    .symbol:         mls_mmac_kernel.kd
    .vgpr_count:     214
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   'amdgcn-amd-amdhsa--gfx946:xnack-'
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
