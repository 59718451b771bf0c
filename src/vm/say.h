/* The VM's messages: one line into the caller's err, and the value to return. */
#ifndef TRACETAX_VM_SAY_H
#define TRACETAX_VM_SAY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* -1 a failure, -2 bad input (exit 2). */
static inline int __attribute__((format(printf, 4, 5)))
vm_say(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
#define ERR(...) vm_say(-1, err, errlen, __VA_ARGS__)
#define BAD(...) vm_say(-2, err, errlen, __VA_ARGS__)

#endif
