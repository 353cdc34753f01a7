// d2d: device-to-device cudaMemcpy bandwidth, the reference the STREAM kernels are compared against in the
// same run (docs/PERFORMANCE.md). Usage: d2d BYTES [ITERATIONS]. Prints one JSON line; bandwidth counts bytes
// read plus bytes written (2 x BYTES per copy), the minimum time over the iterations after one warm-up.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "d2d: %s: %s\n", #call, cudaGetErrorString(e_));                                 \
            return 1;                                                                                        \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    size_t bytes = argc > 1 ? strtoull(argv[1], nullptr, 10) : (size_t)1 << 28;
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    void *src, *dst;
    cudaEvent_t t0, t1;
    float best = 1e30f, sum = 0.0f;

    if (bytes == 0 || iters < 2) {
        fprintf(stderr, "usage: d2d BYTES [ITERATIONS >= 2]\n");
        return 2;
    }
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemset(src, 1, bytes));
    CHECK(cudaMemset(dst, 0, bytes));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int i = 0; i < iters; i++) {
        float ms;
        CHECK(cudaEventRecord(t0));
        CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        CHECK(cudaEventElapsedTime(&ms, t0, t1));
        if (i == 0)
            continue; // warm-up
        best = ms < best ? ms : best;
        sum += ms;
    }
    printf("{\"tool\": \"d2d\", \"bytes\": %zu, \"iterations\": %d, \"min_s\": %.9g, \"mean_s\": %.9g, "
           "\"bandwidth_bytes_per_s\": %.6g}\n",
           bytes, iters - 1, best * 1e-3, sum / (iters - 1) * 1e-3, 2.0 * (double)bytes / (best * 1e-3));
    return 0;
}
