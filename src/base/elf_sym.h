/* Symbols of an ELF file on disk, for probes that want a file offset. */
#ifndef TRACETAX_ELF_SYM_H
#define TRACETAX_ELF_SYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file offset of the first instruction of function @name defined in
 * @path (.symtab, else .dynsym): what a uprobe event wants after "path:".
 * 0, or -1 with a message in @err.
 */
int elf_func_offset(const char *path, const char *name, uint64_t *off, char *err, size_t len);

#endif
