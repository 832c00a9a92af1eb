// A gfx936 MMAC loop written the way Hygon's hand-written (Tensile-style)
// kernels are: registers named by .set symbols, the tile's four
// v_mmac_f32_16x16x16_f16 made by a macro inside a .rept with a .set
// counter, accumulators zeroed by a .rept, stores by an .irp, a debug block
// behind .if.  hygon_mmac_macros.expanded.s is the same kernel written out.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx936"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function

.set vgprValuC, 0        /* 4 accumulator tiles, v[0:15] */
.set vgprValuA, 16       /* 2 A fragments */
.set vgprValuB, 20       /* 2 B fragments */
.set vgprLdsA, 24
.set vgprLdsB, 25
.set vgprDebug, 40
.set sgprKernArg, 0
.set sgprOut, 4
.set sgprLoop, 10
.set DEBUG, 0

.macro MMAC acc, a, b
	v_mmac_f32_16x16x16_f16 v[\acc:\acc+3], v[\a:\a+1], v[\b:\b+1], v[\acc:\acc+3]
.endm

.macro ZERO first, count=4
	.set z, 0
	.rept \count
	v_mov_b32_e32 v[\first+z], 0
	.set z, z+1
	.endr
.endm

.macro STORE tile, off
	.ifb \off
	global_store_dwordx4 v[vgprLdsA], v[vgprValuC+4*\tile:vgprValuC+4*\tile+3], s[sgprOut:sgprOut+1]
	.else
	global_store_dwordx4 v[vgprLdsA], v[vgprValuC+4*\tile:vgprValuC+4*\tile+3], s[sgprOut:sgprOut+1] offset:\off
	.endif
.endm

k:
	s_load_dwordx2 s[sgprOut:sgprOut+1], s[sgprKernArg:sgprKernArg+1], 0x0
	v_lshlrev_b32_e32 v[vgprLdsA], 4, v0
	v_lshlrev_b32_e32 v[vgprLdsB], 3, v0
	ZERO vgprValuC, 16
	s_mov_b32 s[sgprLoop], 8
.LBB0_1:
	ds_read_b64 v[vgprValuA:vgprValuA+1], v[vgprLdsA]
	ds_read_b64 v[vgprValuA+2:vgprValuA+3], v[vgprLdsA] offset:256
	ds_read_b128 v[vgprValuB:vgprValuB+3], v[vgprLdsB]
	s_waitcnt lgkmcnt(0)
	.set t, 0
	.rept 4
	MMAC vgprValuC+4*t, vgprValuA+2*(t/2), vgprValuB+2*(t%2)
	.set t, t+1
	.endr
	s_sub_u32 s[sgprLoop], s[sgprLoop], 1
	s_cmp_lg_u32 s[sgprLoop], 0
	s_cbranch_scc1 .LBB0_1
.if DEBUG
	v_mov_b32_e32 v[vgprDebug], v[vgprLdsA]
	global_store_dword v[vgprDebug], v[vgprDebug], s[sgprOut:sgprOut+1]
.endif
	s_waitcnt lgkmcnt(0)
	STORE 0
	.irp off, 16, 32, 48
	STORE \off/16, \off
	.endr
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
