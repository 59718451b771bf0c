/* The UAPI types and <linux/bpf.h>, for every BPF object of tracetax. */
#ifndef TRACETAX_TYPES_BPF_H
#define TRACETAX_TYPES_BPF_H

/*
 * No vmlinux.h, and no <linux/types.h> either: clang -target bpf does not
 * search Debian's multiarch directory, where <asm/types.h> lives, so
 * <linux/bpf.h> would not compile. These are the fixed-width UAPI types on
 * every architecture BPF runs on; claiming linux/types.h's include guard
 * lets <linux/bpf.h> supply the real map types, flags and context structs.
 */
#define _LINUX_TYPES_H
typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __le16, __be16, __sum16;
typedef __u32 __le32, __be32, __wsum;
typedef __u64 __le64, __be64;
#define __aligned_u64 __u64 __attribute__((aligned(8)))

#include <linux/bpf.h>

#endif
