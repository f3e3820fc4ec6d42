/* clgpu-bench run's ops with a peer (bench_peers.c): elementwise kernels and
 * strided copies, each timed beside a peer in the same run. */
#ifndef CLGPU_BENCH_PEERS_H
#define CLGPU_BENCH_PEERS_H

#include "bench_case.h"

/* The buffers the ops with a peer add to a case, at the first such op: 0,
 * or 1 after a failure (printed). */
int bench_prepare_peer_ops(bench_case *c, int op);

/* Release what bench_setup_peer_op made for one op (its kernel object and hand
 * kernel), and everything bench_prepare_peer_ops made. */
void bench_release_peer_op(bench_case *c);
void bench_release_peer_ops(bench_case *c);

/* The op's kernel object (the elementwise ops; nothing for the copies). */
clgpu_status bench_create_op_kernel(bench_case *c, int op);

/* The views of an op with a peer and the words that describe them in the
 * row (its kernel object comes from bench_create_op_kernel). */
clgpu_status bench_setup_peer_views(bench_case *c, int op, result *row);

/* The views of an op with a peer, its kernel object (or hand kernel), and
 * what the row says of them. */
clgpu_status bench_setup_peer_op(bench_case *c, int op, result *row);

/* Enqueue the op's peer. */
clgpu_status bench_enqueue_peer(bench_case *c, int op, cl_event *event);

/* Check what the peer of an op wrote: 0 when right, 1 with *message, or -1
 * with *status when reading failed. */
int bench_check_peer(bench_case *c, int op, check_message *message, clgpu_status *status);

#endif
