/*
 * cuda/cg: the CG suite's kernels (paper 002: AXPBY, DOT, SPMV) in CUDA, as cuda_cg_ops registered with
 * PP_SUITE_IMPL, and the vendor library's SPMV (cuSPARSE) as the variant spmv_variant = cusparse.
 *
 * Every op launches on the legacy default stream and waits (cudaDeviceSynchronize, or the dot's copy of its
 * partial sums), so the driver times it with a host clock. The native SPMV gives each row items_per_row
 * lanes of a warp (a power of two up to 32) and a block rows_per_group rows: the lanes of a row read its
 * entries in contiguous rounds through the read-only path (__ldg), column indices 32-bit, and add their sums
 * with warp shuffles. The dot is two-stage like kernels/stream/stream.cu's: per-block partial sums, added on
 * the host inside the call. cuSPARSE is loaded with dlopen on first use (libcusparse.so.12): a host without
 * it builds and runs everything else and gets "unsupported: libcusparse not found" for that variant.
 *
 * Ownership: the state (struct cuda_cg) is private to this file, in the context's suite slot from alloc to
 * release (or close). Threads: the context's thread only.
 */
#include "kernels/cuda/cuda.h"

#include <cusparse.h> /* types and prototypes only: the library is dlopen'd, never linked */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernels/cg/cg_ops.h"

namespace
{

#define SPMV_ROWS_DEFAULT  32 /* the paper's rows per team; 32 x 8 = 256 threads */
#define SPMV_ITEMS_DEFAULT 8  /* a row's 27 entries in four rounds of eight contiguous loads */
#define VECTOR_BLOCK       256

#if PP_VARIANT_REGION(CUSPARSE)
/* ---- cuSPARSE, loaded on demand ----
 * The SPMV variants, native and cusparse, are variant regions (kernels/backend.h): both are built, one runs.
 */

struct cusparse_api {
    bool tried, ok;
    char why[256];
    decltype(&cusparseCreate) create;
    decltype(&cusparseDestroy) destroy;
    decltype(&cusparseCreateCsr) create_csr;
    decltype(&cusparseDestroySpMat) destroy_spmat;
    decltype(&cusparseCreateDnVec) create_dnvec;
    decltype(&cusparseDestroyDnVec) destroy_dnvec;
    decltype(&cusparseSpMV_bufferSize) buffer_size;
    decltype(&cusparseSpMV) spmv;
    decltype(&cusparseGetVersion) version;
};

cusparse_api sp;

/* Load libcusparse once per process (the handle stays open: the library keeps CUDA state). */
bool cusparse_load(void)
{
    static const char *const names[] = {"libcusparse.so.12", "/usr/local/cuda/lib64/libcusparse.so.12",
                                        "libcusparse.so"};
    void *h = NULL;

    if (sp.tried)
        return sp.ok;
    sp.tried = true;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
        if (!(h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)))
            snprintf(sp.why, sizeof(sp.why), "%s", dlerror());
    if (!h)
        return false;
#define SYM(field, name)                                                                                     \
    if (!(sp.field = (decltype(sp.field))dlsym(h, name))) {                                                  \
        snprintf(sp.why, sizeof(sp.why), "%s lacks %s", names[0], name);                                     \
        return false;                                                                                        \
    }
    SYM(create, "cusparseCreate")
    SYM(destroy, "cusparseDestroy")
    SYM(create_csr, "cusparseCreateCsr")
    SYM(destroy_spmat, "cusparseDestroySpMat")
    SYM(create_dnvec, "cusparseCreateDnVec")
    SYM(destroy_dnvec, "cusparseDestroyDnVec")
    SYM(buffer_size, "cusparseSpMV_bufferSize")
    SYM(spmv, "cusparseSpMV")
    SYM(version, "cusparseGetVersion")
#undef SYM
    sp.ok = true;
    return true;
}
#endif

/* ---- state ---- */

struct cuda_cg {
    size_t rows, nnz;
    enum pp_precision prec;
    enum pp_cg_spmv spmv;
    unsigned rpg, items;
    uint32_t *row_ptr, *col;
    void *val;
    void *vec[PP_CG_NVECTORS];
    void *partials, *host_partials;
    unsigned dot_groups;
    /* cuSPARSE */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t dn[PP_CG_NVECTORS];
    void *buffer;
    int library_version;
};

} // namespace

extern const struct pp_suite_impl cuda_cg_impl;

namespace
{

cuda_cg **slot(struct pp_ctx *ctx)
{
    return (cuda_cg **)pp_suite_state(&ctx->suites, &cuda_cg_impl);
}

int state(struct pp_ctx *ctx, cuda_cg **out, struct pp_error *err)
{
    *out = *slot(ctx);
    return *out ? 0 : pp_error_set(err, "cg: no matrix allocated (alloc first)");
}

#if PP_VARIANT_REGION(CUSPARSE)
int sparse_check(cusparseStatus_t st, struct pp_error *err, const char *what)
{
    return st == CUSPARSE_STATUS_SUCCESS ? 0 : pp_error_set(err, "%s: cusparse status %d", what, (int)st);
}
#endif

int finish(const char *what, struct pp_error *err)
{
    if (cuda_check(cudaGetLastError(), err, what) < 0)
        return -1;
    return cuda_check(cudaDeviceSynchronize(), err, what);
}

/* ---- kernels ---- */

template <typename T> __global__ void fill_kernel(T *v, T value, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = value;
}

/* z may be x or y: plain loads (the read-only path needs data the kernel does not write). */
template <typename T> __global__ void axpby_kernel(T *z, T alpha, const T *x, T beta, const T *y, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = alpha * x[i] + beta * y[i];
}

template <typename T> __device__ __forceinline__ T block_sum(T v)
{
    __shared__ T warp_sums[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;

#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? warp_sums[lane] : T(0);
        for (unsigned off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}

/* Stage one: a grid-stride series per thread (two elements in flight), the block's tree, one partial. */
template <typename T>
__global__ void __launch_bounds__(VECTOR_BLOCK) dot_kernel(const T *x, const T *y, T *partials, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T a0 = 0, a1 = 0;

    for (; i + stride < n; i += 2 * stride) {
        a0 += x[i] * y[i];
        a1 += x[i + stride] * y[i + stride];
    }
    if (i < n)
        a0 += x[i] * y[i];
    T sum = block_sum(a0 + a1);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = sum;
}

#if PP_VARIANT_REGION(NATIVE)
/* y = A x: ITEMS lanes per row, blockDim.x / ITEMS rows per block; no early return (the shuffles need every
 * lane of the warp). */
template <typename T, unsigned ITEMS>
__global__ void __launch_bounds__(1024)
    spmv_kernel(const uint32_t *__restrict__ row_ptr, const uint32_t *__restrict__ col,
                const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, size_t rows)
{
    const unsigned lane = threadIdx.x % ITEMS;
    const size_t row = (size_t)blockIdx.x * (blockDim.x / ITEMS) + threadIdx.x / ITEMS;
    T sum = 0;

    if (row < rows) {
        const uint32_t end = __ldg(&row_ptr[row + 1]);
        for (uint32_t e = __ldg(&row_ptr[row]) + lane; e < end; e += ITEMS)
            sum += __ldg(&val[e]) * __ldg(&x[__ldg(&col[e])]);
    }
#pragma unroll
    for (unsigned off = ITEMS / 2; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off, ITEMS);
    if (lane == 0 && row < rows)
        y[row] = sum;
}

template <typename T, unsigned ITEMS> void spmv_launch(const cuda_cg *s, const void *x, void *y)
{
    const unsigned block = s->rpg * ITEMS;
    const size_t grid = (s->rows + s->rpg - 1) / s->rpg;

    spmv_kernel<T, ITEMS>
        <<<(unsigned)grid, block>>>(s->row_ptr, s->col, (const T *)s->val, (const T *)x, (T *)y, s->rows);
}

template <typename T> void spmv_native(const cuda_cg *s, const void *x, void *y)
{
    switch (s->items) {
    case 1:
        return spmv_launch<T, 1>(s, x, y);
    case 2:
        return spmv_launch<T, 2>(s, x, y);
    case 4:
        return spmv_launch<T, 4>(s, x, y);
    case 8:
        return spmv_launch<T, 8>(s, x, y);
    case 16:
        return spmv_launch<T, 16>(s, x, y);
    default:
        return spmv_launch<T, 32>(s, x, y);
    }
}
#endif

unsigned grid_of(size_t n, unsigned block)
{
    return (unsigned)((n + block - 1) / block);
}

/* ---- ops ---- */

void cg_release(struct pp_ctx *ctx)
{
    cuda_cg **sp_ = slot(ctx), *s = *sp_;

    if (!s)
        return;
        /* errors ignored: after a sticky fault every call fails, and the process ends soon after */
#if PP_VARIANT_REGION(CUSPARSE)
    if (s->handle) {
        for (int v = 0; v < PP_CG_NVECTORS; v++)
            if (s->dn[v])
                sp.destroy_dnvec(s->dn[v]);
        if (s->mat)
            sp.destroy_spmat(s->mat);
        sp.destroy(s->handle);
    }
#endif
    (void)cudaFree(s->buffer);
    (void)cudaFree(s->row_ptr);
    (void)cudaFree(s->col);
    (void)cudaFree(s->val);
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        (void)cudaFree(s->vec[v]);
    (void)cudaFree(s->partials);
    (void)cudaFreeHost(s->host_partials);
    delete s;
    *sp_ = NULL;
}

#if PP_VARIANT_REGION(CUSPARSE)
/* The cuSPARSE descriptors of the matrix and the vectors, and SpMV's work buffer (its size for A x). */
int cusparse_setup(cuda_cg *s, struct pp_error *err)
{
    const cudaDataType t = s->prec == PP_FP32 ? CUDA_R_32F : CUDA_R_64F;
    const double one64 = 1, zero64 = 0;
    const float one32 = 1, zero32 = 0;
    const void *one = s->prec == PP_FP32 ? (const void *)&one32 : (const void *)&one64;
    const void *zero = s->prec == PP_FP32 ? (const void *)&zero32 : (const void *)&zero64;
    size_t bytes = 0;

    if (sparse_check(sp.create(&s->handle), err, "cusparseCreate") ||
        sparse_check(sp.create_csr(&s->mat, (int64_t)s->rows, (int64_t)s->rows, (int64_t)s->nnz, s->row_ptr,
                                   s->col, s->val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, t),
                     err, "cusparseCreateCsr"))
        return -1;
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (sparse_check(sp.create_dnvec(&s->dn[v], (int64_t)s->rows, s->vec[v], t), err,
                         "cusparseCreateDnVec"))
            return -1;
    if (sparse_check(sp.buffer_size(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, s->mat, s->dn[PP_CG_P],
                                    zero, s->dn[PP_CG_AP], t, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                     err, "cusparseSpMV_bufferSize"))
        return -1;
    if (bytes && cuda_check(cudaMalloc(&s->buffer, bytes), err, "cg alloc: cusparse buffer") < 0)
        return -1;
    if (sp.version(s->handle, &s->library_version) != CUSPARSE_STATUS_SUCCESS)
        s->library_version = 0;
    return 0;
}
#endif

int cg_alloc(struct pp_ctx *ctx, size_t rows, size_t nnz, enum pp_precision prec,
             struct pp_cg_variant *variant, struct pp_error *err)
{
    const size_t elem = pp_precision_bytes(prec);
    size_t free_bytes = 0, total_bytes = 0, need;
    unsigned rpg = variant->rows_per_group, items = variant->items_per_row;
    cuda_cg *s;

    cg_release(ctx);
#if PP_VARIANT_REGION(CUSPARSE)
    if (variant->spmv == PP_CG_SPMV_CUSPARSE && !cusparse_load())
        return pp_error_set(err, "unsupported: libcusparse not found (%s)", sp.why);
#endif
    if (nnz > 0x7fffffffu)
        return pp_error_set(err, "cg: %zu entries exceed 32-bit offsets", nnz);
    if (variant->spmv == PP_CG_SPMV_NATIVE) {
        rpg = rpg ? rpg : SPMV_ROWS_DEFAULT;
        items = items ? items : SPMV_ITEMS_DEFAULT;
        if (items > 32 || (items & (items - 1)) || rpg * items > 1024 || rpg * items < 32)
            return pp_error_set(
                err,
                "rows_per_group x items_per_row = %u x %u: cuda needs items_per_row a power of "
                "two up to 32 and 32 .. 1024 threads per block",
                rpg, items);
        if ((rows + rpg - 1) / rpg > 0x7fffffffu)
            return pp_error_set(err, "rows_per_group %u: too many blocks for %zu rows", rpg, rows);
    } else {
        rpg = items = 0;
    }
    need = (rows + 1) * 4 + nnz * (4 + elem) + PP_CG_NVECTORS * rows * elem;
    if (cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), err, "cg alloc: cudaMemGetInfo") < 0)
        return -1;
    if (need > free_bytes)
        return pp_error_set(err,
                            "cg alloc: the matrix and vectors need %.2f GiB, the device has %.2f GiB free",
                            (double)need / (1 << 30), (double)free_bytes / (1 << 30));
    s = new (std::nothrow) cuda_cg();
    if (!s)
        return pp_error_set(err, "out of memory");
    *slot(ctx) = s;
    s->rows = rows;
    s->nnz = nnz;
    s->prec = prec;
    s->spmv = variant->spmv;
    s->rpg = rpg;
    s->items = items;
    s->dot_groups = (unsigned)ctx->sm_count * 8; /* 8 blocks of 256 per SM: 2048 threads, full occupancy */
    if (cuda_check(cudaMalloc(&s->row_ptr, (rows + 1) * 4), err, "cg alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&s->col, nnz * 4), err, "cg alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&s->val, nnz * elem), err, "cg alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMalloc(&s->partials, s->dot_groups * elem), err, "cg alloc: cudaMalloc") < 0 ||
        cuda_check(cudaMallocHost(&s->host_partials, s->dot_groups * elem), err, "cg alloc: cudaMallocHost") <
            0)
        goto fail;
    for (int v = 0; v < PP_CG_NVECTORS; v++)
        if (cuda_check(cudaMalloc(&s->vec[v], rows * elem), err, "cg alloc: cudaMalloc") < 0)
            goto fail;
#if PP_VARIANT_REGION(CUSPARSE)
    if (s->spmv == PP_CG_SPMV_CUSPARSE && cusparse_setup(s, err))
        goto fail;
#endif
    variant->rows_per_group = rpg;
    variant->items_per_row = items;
    variant->work_group = rpg * items;
    variant->vector_group = VECTOR_BLOCK;
    variant->dot_groups = s->dot_groups;
    {
        const uint64_t threads = (uint64_t)s->dot_groups * VECTOR_BLOCK;
        variant->dot_chain = (rows + 2 * threads - 1) / (2 * threads) + 1 + 8 + s->dot_groups;
    }
    variant->threads = 0;
    return 0;
fail:
    cg_release(ctx);
    return -1;
}

/* Copy len doubles to dst on the device in the precision (through a host buffer for fp32). */
int upload_real(const cuda_cg *s, void *dst, const double *src, size_t len, struct pp_error *err)
{
    if (s->prec == PP_FP64)
        return cuda_check(cudaMemcpy(dst, src, len * 8, cudaMemcpyHostToDevice), err, "cg upload");
    float *f = (float *)malloc(len * sizeof(float));
    int rc;
    if (!f)
        return pp_error_set(err, "out of host memory");
    for (size_t i = 0; i < len; i++)
        f[i] = (float)src[i];
    rc = cuda_check(cudaMemcpy(dst, f, len * 4, cudaMemcpyHostToDevice), err, "cg upload");
    free(f);
    return rc;
}

int cg_upload_matrix(struct pp_ctx *ctx, const uint32_t *row_ptr, const uint32_t *col, const double *val,
                     struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (cuda_check(cudaMemcpy(s->row_ptr, row_ptr, (s->rows + 1) * 4, cudaMemcpyHostToDevice), err,
                   "cg upload") < 0 ||
        cuda_check(cudaMemcpy(s->col, col, s->nnz * 4, cudaMemcpyHostToDevice), err, "cg upload") < 0)
        return -1;
    return upload_real(s, s->val, val, s->nnz, err);
}

int cg_upload(struct pp_ctx *ctx, enum pp_cg_vector v, const double *x, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return upload_real(s, s->vec[v], x, s->rows, err);
}

int cg_download(struct pp_ctx *ctx, enum pp_cg_vector v, double *x, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP64)
        return cuda_check(cudaMemcpy(x, s->vec[v], s->rows * 8, cudaMemcpyDeviceToHost), err, "cg download");
    /* fp32 lands in the upper half of x, then widens from the front */
    float *f = (float *)((char *)x + s->rows * 4);
    if (cuda_check(cudaMemcpy(f, s->vec[v], s->rows * 4, cudaMemcpyDeviceToHost), err, "cg download") < 0)
        return -1;
    for (size_t i = 0; i < s->rows; i++)
        x[i] = f[i];
    return 0;
}

int cg_fill(struct pp_ctx *ctx, enum pp_cg_vector v, double value, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        fill_kernel<float>
            <<<grid_of(s->rows, VECTOR_BLOCK), VECTOR_BLOCK>>>((float *)s->vec[v], (float)value, s->rows);
    else
        fill_kernel<double>
            <<<grid_of(s->rows, VECTOR_BLOCK), VECTOR_BLOCK>>>((double *)s->vec[v], value, s->rows);
    return finish("fill", err);
}

int cg_axpby(struct pp_ctx *ctx, enum pp_cg_vector z, double alpha, enum pp_cg_vector x, double beta,
             enum pp_cg_vector y, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (s->prec == PP_FP32)
        axpby_kernel<float><<<grid_of(s->rows, VECTOR_BLOCK), VECTOR_BLOCK>>>(
            (float *)s->vec[z], (float)alpha, (const float *)s->vec[x], (float)beta, (const float *)s->vec[y],
            s->rows);
    else
        axpby_kernel<double><<<grid_of(s->rows, VECTOR_BLOCK), VECTOR_BLOCK>>>(
            (double *)s->vec[z], alpha, (const double *)s->vec[x], beta, (const double *)s->vec[y], s->rows);
    return finish("axpby", err);
}

template <typename T> int dot_t(cuda_cg *s, const void *x, const void *y, double *out, struct pp_error *err)
{
    const T *host = (const T *)s->host_partials;
    T sum = 0;

    dot_kernel<T><<<s->dot_groups, VECTOR_BLOCK>>>((const T *)x, (const T *)y, (T *)s->partials, s->rows);
    if (cuda_check(cudaGetLastError(), err, "dot") < 0)
        return -1;
    /* waits for the kernel (legacy default stream) and returns once the pinned copy is complete */
    if (cuda_check(
            cudaMemcpy(s->host_partials, s->partials, s->dot_groups * sizeof(T), cudaMemcpyDeviceToHost), err,
            "dot") < 0)
        return -1;
    for (unsigned g = 0; g < s->dot_groups; g++)
        sum += host[g];
    *out = (double)sum;
    return 0;
}

int cg_dot(struct pp_ctx *ctx, enum pp_cg_vector x, enum pp_cg_vector y, double *sum, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    return s->prec == PP_FP32 ? dot_t<float>(s, s->vec[x], s->vec[y], sum, err)
                              : dot_t<double>(s, s->vec[x], s->vec[y], sum, err);
}

int cg_spmv(struct pp_ctx *ctx, enum pp_cg_vector y, enum pp_cg_vector x, struct pp_error *err)
{
    cuda_cg *s;

    if (state(ctx, &s, err))
        return -1;
    if (x == y)
        return pp_error_set(err, "spmv: y must not be x");
#if PP_VARIANT_REGION(CUSPARSE)
    if (s->spmv == PP_CG_SPMV_CUSPARSE) {
        const cudaDataType t = s->prec == PP_FP32 ? CUDA_R_32F : CUDA_R_64F;
        const double one64 = 1, zero64 = 0;
        const float one32 = 1, zero32 = 0;
        const void *one = s->prec == PP_FP32 ? (const void *)&one32 : (const void *)&one64;
        const void *zero = s->prec == PP_FP32 ? (const void *)&zero32 : (const void *)&zero64;

        if (sparse_check(sp.spmv(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, s->mat, s->dn[x], zero,
                                 s->dn[y], t, CUSPARSE_SPMV_ALG_DEFAULT, s->buffer),
                         err, "cusparseSpMV"))
            return -1;
        return finish("spmv (cusparse)", err);
    }
#endif
#if PP_VARIANT_REGION(NATIVE)
    if (s->prec == PP_FP32)
        spmv_native<float>(s, s->vec[x], s->vec[y]);
    else
        spmv_native<double>(s, s->vec[x], s->vec[y]);
#endif
    return finish("spmv", err);
}

void cg_describe(struct pp_ctx *ctx, struct pp_info_list *out)
{
    cuda_cg *s = *slot(ctx);

#if PP_VARIANT_REGION(CUSPARSE)
    if (sp.ok && s && s->library_version)
        info_add(out, "cuda.cusparse_version", "%d", s->library_version);
#endif
}

const struct pp_cg_ops cuda_cg_ops = {
    .spmv_variants = (1u << PP_CG_SPMV_NATIVE) | (1u << PP_CG_SPMV_CUSPARSE),
    .alloc = cg_alloc,
    .upload_matrix = cg_upload_matrix,
    .upload = cg_upload,
    .fill = cg_fill,
    .download = cg_download,
    .axpby = cg_axpby,
    .dot = cg_dot,
    .spmv = cg_spmv,
    .release = cg_release,
};

} // namespace

PP_SUITE_IMPL(cuda, cg) = {
    .suite = "cg",
    .ops = &cuda_cg_ops,
    .release = cg_release,
    .describe = cg_describe,
};
