// A gfx92a (YY) kernel in the shape of Hygon's Triton's MLS v2 forms
// (HYGON-AI/triton-das: gfx92a has MLS version 2 with the padbyte LDS reads
// and VGPR matrix stores, fp8 and fp6/fp4 MMAC, no f32 x8 MMAC;
// TargetUtils.cpp@0698445c:103-127, MlsGroup.h@1b43112f:148-161,
// MlsOpToLLVM.cpp generateMatrixStoreVGPROp): an fp4 MMAC (A and B 2 VGPRs,
// 16 four-bit values per lane; C = D 4), a padbyte read of 4 VGPRs, and the
// accumulator stored straight from VGPRs with matrix_store.  Written for
// treg's tests; upstream LLVM cannot assemble it.
//
// Figures by hand (tests/cli/test_hygon_targets.sh checks them):
//   VGPRs: v0..v129 named -> NumVgprs 130; the budget is 512 per SIMD:
//     waves = min(10, floor(512 / 132)) = 3; 4 waves need 128: 2 to free.
//   Peak live 14, at the second LDS read (+0x48): v128 and v129 (two row
//     offsets read at the end), the accumulator v[120:123], the padbyte
//     read's v[124:127] and the v[4:7] being written.
//   SGPRs: s0..s9 -> 10 numbered + VCC = 12.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx92a:xnack-"
	.globl	mls_fp4_kernel
	.p2align	8
	.type	mls_fp4_kernel,@function
mls_fp4_kernel:
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_mov_b32 s8, 0
	s_mov_b32 s9, 0x400
	v_lshlrev_b32_e32 v128, 4, v0
	v_lshlrev_b32_e32 v129, 5, v0
	v_mov_b32_e32 v120, 0
	v_mov_b32_e32 v121, 0
	v_mov_b32_e32 v122, 0
	v_mov_b32_e32 v123, 0
	s_waitcnt lgkmcnt(0)
	matrix_load_64x16_fp4 s[4:7], s8, moffset:0, lds
	s_waitcnt vmcnt(0)
	s_barrier
	ds_read_matrix_padbyte v[124:127], s8 offset:0 element:0x0 row:0x3 col:0x1 alt:0x0
	ds_read_matrix_format v[4:7], s9 offset:0 element:0x0 row:0x3 col:0x1 alt:0x0
	s_waitcnt lgkmcnt(0)
	v_mmac_f32_16x16x64_fp4 v[120:123], v[124:125], v[126:127], v[120:123]
	v_mmac_f32_16x16x64_fp4 v[120:123], v[4:5], v[6:7], v[120:123]
	v_add_u32_e32 v128, v128, v129
	matrix_store_32x16_b16 v[120:123], s[4:7], moffset:0
	global_store_dword v128, v120, s[4:5]
	s_endpgm
.Lfunc_end0:
	.size	mls_fp4_kernel, .Lfunc_end0-mls_fp4_kernel
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mls_fp4_kernel
		.amdhsa_group_segment_fixed_size 8192
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 130
		.amdhsa_next_free_sgpr 10
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 0
	.end_amdhsa_kernel
	.text
; Kernel info:
; NumSgprs: 12
; NumVgprs: 130
; SGPRBlocks: 1
; VGPRBlocks: 32
; Occupancy: 3
