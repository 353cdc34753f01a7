/*
 * stream/model: STREAM's byte and flop models (paper 004, BabelStream's weights; docs/METHODOLOGY.md), the
 * one definition the driver (kernels/stream/stream.c) states in a report and ppbenchd holds a report to (the
 * suite table's model hook, kernels/suite.h). Pure; any thread.
 */
#ifndef PP_STREAM_MODEL_H
#define PP_STREAM_MODEL_H

#include <jansson.h>
#include <stddef.h>

#include "kernels/stream/stream.h"
#include "kernels/suite.h"

/* Kernel k's models per application on n elements of prec: arrays moved x n x element bytes (the compulsory
 * traffic too: BabelStream's weights count each array read or written once), flops per element x n. */
void stream_model(enum stream_kernel k, size_t n, enum pp_precision prec, struct suite_model *out);

/* The suite table's hook: every kernel's models (out[k], enum stream_kernel's order, the table's) for
 * problem.size elements of problem.precision. */
int stream_model_problem(const json_t *problem, struct suite_model *out, struct suite_error *e) PP_WUR;

#endif
