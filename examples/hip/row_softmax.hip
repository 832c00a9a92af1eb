// softmax of each row of a row-major matrix, one workgroup per row: each
// thread keeps its slice of the row in registers (PER values), the row's
// maximum and sum are reduced through shared memory, and every thread reads
// them back.  Those two are the same in every lane: values an SGPR could
// hold, which treg reports as wave-uniform values in vector registers.
#include "gpu.h"

#define THREADS 256
#ifndef PER
#define PER 4
#endif

__device__ static float block_reduce(float v, float *scratch, bool is_max)
{
    scratch[threadIdx_x] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (threadIdx_x < s) {
            float o = scratch[threadIdx_x + s];
            scratch[threadIdx_x] =
                is_max ? __builtin_fmaxf(scratch[threadIdx_x], o) : scratch[threadIdx_x] + o;
        }
        __syncthreads();
    }
    float r = scratch[0];
    __syncthreads();
    return r;
}

extern "C" __global__ __launch_bounds__(THREADS) void row_softmax(float *out, const float *in,
                                                                  int stride)
{
    __shared__ float scratch[THREADS];
    const float *row = in + blockIdx_x * stride;
    float x[PER];
    float m = -__builtin_inff();
#pragma unroll
    for (int i = 0; i < PER; i++) {
        x[i] = row[threadIdx_x + i * THREADS];
        m = __builtin_fmaxf(m, x[i]);
    }
    m = block_reduce(m, scratch, true); // the row's maximum: the same in every lane
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < PER; i++) {
        x[i] = __builtin_expf(x[i] - m);
        s += x[i];
    }
    s = block_reduce(s, scratch, false); // the row's sum: the same in every lane
#pragma unroll
    for (int i = 0; i < PER; i++) out[blockIdx_x * stride + threadIdx_x + i * THREADS] = x[i] / s;
}
