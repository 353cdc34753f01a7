/*
 * precisions: a model's kernels written once over REAL and instantiated per precision. A suite's model file
 * defines PP_KERNELS to the header holding them ("kernels/<suite>/openmp_kernels.h") and includes this file,
 * which includes that header twice: with REAL float, REAL_IS_FLOAT 1 and KERNEL(name) name##_fp32, then with
 * REAL double, REAL_IS_FLOAT 0 and name##_fp64; PP_BY_PRECISION(prec, name, args...) (kernels/backend.h)
 * calls the one a run's precision needs. Extra parameters of an instance (a layout, a strategy) are the
 * including file's macros, set around the include, and PP_KERNEL_TAG, when defined (_aos), goes into the
 * names: name_aos_fp32. Include it as often as instances are needed; it undefines PP_KERNELS and
 * PP_KERNEL_TAG.
 */
#ifndef PP_KERNELS
#error "define PP_KERNELS to the kernels' header before including kernels/precisions.h"
#endif

#ifndef PP_KERNEL_TAG
#define PP_KERNEL_TAG
#endif
#ifndef PP_PASTE3
#define PP_PASTE3_(a, b, c) a##b##c
#define PP_PASTE3(a, b, c)  PP_PASTE3_(a, b, c)
#endif

#define REAL          float
#define REAL_IS_FLOAT 1
#define KERNEL(k)     PP_PASTE3(k, PP_KERNEL_TAG, _fp32)
#include PP_KERNELS
#undef REAL
#undef REAL_IS_FLOAT
#undef KERNEL

#define REAL          double
#define REAL_IS_FLOAT 0
#define KERNEL(k)     PP_PASTE3(k, PP_KERNEL_TAG, _fp64)
#include PP_KERNELS
#undef REAL
#undef REAL_IS_FLOAT
#undef KERNEL

#undef PP_KERNELS
#undef PP_KERNEL_TAG
