/* Function symbol -> file offset, with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/elf_sym.h"

/* Looks @name up in one symbol table; 1 when found (*@sym set), else 0. */
static int find_in_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			 GElf_Sym *sym)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		const char *s;

		if (!gelf_getsym(data, (int)i, sym) || sym->st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym->st_name);
		if (s && !strcmp(s, name))
			return 1;
	}
	return 0;
}

/* .symtab first: it also holds local (static) functions; .dynsym if stripped. */
static int find_sym(Elf *elf, const char *name, GElf_Sym *sym)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };

	for (size_t t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == types[t] &&
			    find_in_table(elf, scn, &sh, name, sym))
				return 1;
	}
	return 0;
}

/*
 * A symbol's value is a virtual address; the uprobe wants where those bytes
 * sit in the file: the section that holds the symbol maps sh_addr to
 * sh_offset (the same rule libbpf follows for its uprobes).
 */
static int sym_to_offset(Elf *elf, const GElf_Sym *sym, uint64_t *off)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sym->st_value < sh.sh_addr ||
	    sym->st_value >= sh.sh_addr + sh.sh_size)
		return -1;
	*off = sym->st_value - sh.sh_addr + sh.sh_offset;
	return 0;
}

static int lookup(Elf *elf, const char *path, const char *name, uint64_t *off,
		  char *err, size_t len)
{
	GElf_Sym sym;

	if (!find_sym(elf, name, &sym)) {
		snprintf(err, len, "function '%s' not found in '%s'", name, path);
		return -1;
	}
	/* An ifunc symbol is the resolver, run once at bind time, not the function. */
	if (GELF_ST_TYPE(sym.st_info) != STT_FUNC) {
		snprintf(err, len, "symbol '%s' in '%s' is not a plain function (type %d)",
			 name, path, GELF_ST_TYPE(sym.st_info));
		return -1;
	}
	if (sym_to_offset(elf, &sym, off)) {
		snprintf(err, len, "cannot map symbol '%s' of '%s' to a file offset", name, path);
		return -1;
	}
	return 0;
}

int elf_func_offset(const char *path, const char *name, uint64_t *off, char *err, size_t len)
{
	int fd, ret = -1;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, len, "cannot initialise libelf: %s", elf_errmsg(-1));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		snprintf(err, len, "cannot read '%s' as ELF: %s", path, elf_errmsg(-1));
	else
		ret = lookup(elf, path, name, off, err, len);
	elf_end(elf);
	close(fd);
	return ret;
}
