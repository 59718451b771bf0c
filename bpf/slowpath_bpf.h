/*
 * What bpf/slowpath.bpf.c and src/measure/slowpath.c share: the syscall
 * work bits in an order of our own, whatever numbers this kernel's enum
 * syscall_work_bit gives them (read by CO-RE).
 */
#ifndef TRACETAX_SLOWPATH_BPF_H
#define TRACETAX_SLOWPATH_BPF_H

#define SP_SECCOMP        0
#define SP_TRACEPOINT     1
#define SP_TRACE          2
#define SP_EMU            3
#define SP_AUDIT          4
#define SP_USER_DISPATCH  5
#define SP_EXIT_TRAP      6
#define SP_NBITS          7

#endif
