// The few HIP names the examples use, for clang's device-only compile with
// -nogpuinc (no ROCm needed): the kernel attribute, thread and block ids,
// shared memory and the barrier.  With ROCm, <hip/hip_runtime.h> gives the
// same names and the kernels compile unchanged.
#pragma once
#define __global__           __attribute__((global))
#define __device__           __attribute__((device))
#define __shared__           __attribute__((shared))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define threadIdx_x          ((int)__builtin_amdgcn_workitem_id_x())
#define blockIdx_x           ((int)__builtin_amdgcn_workgroup_id_x())
#define blockIdx_y           ((int)__builtin_amdgcn_workgroup_id_y())
#define __syncthreads()      __builtin_amdgcn_s_barrier()
