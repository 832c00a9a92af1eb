// A kernel calling a non-kernel device function, the shape DTK's clang gives
// gfx928 code that uses double precision (__softfloat_f64_* called with
// s_swappc_b64, AMDGPU-NOTES.md): the function saves the callee-saved v40
// it uses with a "Folded Spill" to its stack frame (s32) and restores it
// before its return.  The kernel's own code names v0-v3 and v10 (11 VGPRs);
// the descriptor's next_free_vgpr is the function's 41, as LLVM counts a
// kernel's callees' registers as its own, and its private segment holds the
// function's 4-byte frame.  gfx906 here so llvm-mc-22 assembles it; the test
// reads the same text again as gfx928.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
	.amdhsa_code_object_version 5
	.text
	.hidden	__softfloat_f64_add
	.globl	__softfloat_f64_add
	.p2align	2
	.type	__softfloat_f64_add,@function
__softfloat_f64_add:
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	buffer_store_dword v40, off, s[0:3], s32 ; 4-byte Folded Spill
	v_and_b32_e32 v40, 0x7ff00000, v1
	v_and_b32_e32 v4, 0x7ff00000, v3
	v_sub_u32_e32 v5, v40, v4
	v_add_f64 v[6:7], v[0:1], v[2:3]
	v_cmp_gt_u32_e32 vcc, 0x3ff00000, v5
	v_cndmask_b32_e32 v0, v6, v0, vcc
	v_cndmask_b32_e32 v1, v7, v1, vcc
	buffer_load_dword v40, off, s[0:3], s32 ; 4-byte Folded Reload
	s_waitcnt vmcnt(0)
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	__softfloat_f64_add, .Lfunc_end0-__softfloat_f64_add

	.globl	k
	.p2align	8
	.type	k,@function
k:
	s_add_u32 s0, s0, s7
	s_addc_u32 s1, s1, 0
	s_load_dwordx4 s[8:11], s[4:5], 0x0
	v_lshlrev_b32_e32 v10, 4, v0
	s_waitcnt lgkmcnt(0)
	global_load_dwordx2 v[0:1], v10, s[8:9]
	global_load_dwordx2 v[2:3], v10, s[8:9] offset:8
	s_getpc_b64 s[16:17]
	s_add_u32 s16, s16, __softfloat_f64_add@rel32@lo+4
	s_addc_u32 s17, s17, __softfloat_f64_add@rel32@hi+12
	s_mov_b32 s32, 0
	s_waitcnt vmcnt(0)
	s_swappc_b64 s[30:31], s[16:17]
	global_store_dwordx2 v10, v[0:1], s[10:11]
	s_endpgm
.Lfunc_end1:
	.size	k, .Lfunc_end1-k

	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_private_segment_wavefront_offset 1
		.amdhsa_private_segment_fixed_size 4
		.amdhsa_next_free_vgpr 41
		.amdhsa_next_free_sgpr 33
		.amdhsa_kernarg_size 16
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 16
    .max_flat_workgroup_size: 256
    .name:           k
    .private_segment_fixed_size: 4
    .sgpr_count:     39
    .symbol:         k.kd
    .vgpr_count:     41
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx906
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
