/* findall predicates that may be evaluated on sixteen elements at once
 * (vector_predicate.c). */
#ifndef CLGPU_SRC_VECTOR_PREDICATE_H
#define CLGPU_SRC_VECTOR_PREDICATE_H

#include <clgpu/array.h>

/* 1 when `text`, a predicate already checked by clgpu__check_user_text,
 * gives the same matches evaluated on a vector of sixteen elements of
 * `type` as on each element alone: comparisons of x with x or with
 * literals whose value `type` holds, joined by &&, || and ! and
 * parentheses. Then *vector_text (malloc'd) is the predicate to evaluate
 * with x a vector, each literal cast to the element type, its true lanes
 * -1. 0 otherwise (the predicate is evaluated one element at a time), -1
 * when out of memory; *vector_text is NULL then. */
int clgpu__vector_predicate(const char *text, clgpu_type type, char **vector_text);

#endif
