/*
 * The loopback TCP workloads (tcp.c): each workload thread owns one
 * connection over 127.0.0.1 and a peer thread at its other end.
 */
#ifndef TRACETAX_LOAD_TCP_H
#define TRACETAX_LOAD_TCP_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_MSG_DEFAULT 1448	/* one full segment's payload on a 1500-byte MTU */
#define TCP_MSG_MAX (1 << 20)

/* --msg-size: bytes per message (stream) or per request and response (rr). */
extern uint32_t tcp_msg_size;
/* Bytes each op sends, for throughput: --msg-size once a tcp thread began; else 0. */
extern uint32_t tcp_bytes_per_op;

/*
 * Before the thread's first op: its own network namespace when we may
 * (root), a connection over 127.0.0.1, and the peer thread on @peer_cpu
 * (-1: anywhere). 0, or -1 with a message on stderr.
 */
int tcp_begin_stream(int peer_cpu);
int tcp_begin_rr(int peer_cpu);
/* After the thread's last op: reset the connection, join the peer. */
void tcp_end(void);

/*
 * One op: a message sent with sendto(2) (op @i of @n; the last waits until
 * the peer has read the loop's every byte), or a request sent and its
 * response read. false when the op failed; after one failure every op fails
 * at once, so a broken connection costs one timeout, not one per op.
 */
bool tcp_stream_op(uint64_t i, uint64_t n);
bool tcp_rr_op(void);

#endif
