// C = A x B for row-major float matrices, each thread computing a TM x TN
// block of C: the TM x TN accumulators stay in vector registers for the
// whole K loop, so the block size decides the kernel's VGPRs.  Build with
// -DTM=4 -DTN=4 and -DTM=8 -DTN=8 and let treg say what the larger block
// costs (examples/README.md).
#include "gpu.h"

#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#define THREADS 256
#define BK      8 // the K slice staged through shared memory per step

extern "C" __global__ __launch_bounds__(THREADS) void tiled_gemm(float *c, const float *a,
                                                                 const float *b, int n, int k)
{
    // a 16 x 16 grid of threads covers a (16 TM) x (16 TN) tile of C
    const int tx = threadIdx_x % 16, ty = threadIdx_x / 16;
    const int row0 = (blockIdx_y * 16 + ty) * TM, col0 = (blockIdx_x * 16 + tx) * TN;
    __shared__ float as[16 * TM][BK];
    __shared__ float bs[BK][16 * TN];

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < k; k0 += BK) {
        // stage the K slice of A's rows and B's columns
        for (int e = threadIdx_x; e < 16 * TM * BK; e += THREADS)
            as[e / BK][e % BK] = a[(blockIdx_y * 16 * TM + e / BK) * k + k0 + e % BK];
        for (int e = threadIdx_x; e < BK * 16 * TN; e += THREADS)
            bs[e / (16 * TN)][e % (16 * TN)] =
                b[(k0 + e / (16 * TN)) * n + blockIdx_x * 16 * TN + e % (16 * TN)];
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float ra[TM], rb[TN];
#pragma unroll
            for (int i = 0; i < TM; i++) ra[i] = as[ty * TM + i][kk];
#pragma unroll
            for (int j = 0; j < TN; j++) rb[j] = bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) c[(row0 + i) * n + col0 + j] = acc[i][j];
}
