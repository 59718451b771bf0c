/* The guest's console log and qemu's: why a guest died, and its log kept (console.c). */
#ifndef TRACETAX_VM_CONSOLE_H
#define TRACETAX_VM_CONSOLE_H

#include <stddef.h>

/* The last non-empty line of a log, printable; "" none. */
void log_last_line(const char *path, char *line, size_t len);
/*
 * The line of a console log that says why the guest died: its first panic,
 * BUG, Oops, stall or lockup line, or our init's own ("tracetax-vm: ...");
 * "" when it has none.
 */
void console_cause(const char *path, char *line, size_t len);
/*
 * @path kept in the state directory as vm-console-<release>.log (the last
 * failure of that kernel): 0 and its path in @kept, or -1 and why.
 */
int console_keep(const char *path, const char *release, char *kept, size_t len);

#endif
