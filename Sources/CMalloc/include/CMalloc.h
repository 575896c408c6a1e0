// CMalloc: glibc's malloc tunables (mallopt), as typed calls. No policy: the caller chooses the values.
#ifndef CMALLOC_H
#define CMALLOC_H

/// mallopt(M_TRIM_THRESHOLD, bytes): free bytes at the top of a heap kept before any is given back. 1 on success.
int dw_malloc_set_trim_threshold(int bytes);
/// mallopt(M_MMAP_THRESHOLD, bytes): blocks at least this big are mapped on their own. 1 on success.
int dw_malloc_set_mmap_threshold(int bytes);
/// mallopt(M_ARENA_MAX, count): arenas glibc creates at most (threads beyond share them). 1 on success.
int dw_malloc_set_arena_max(int count);
/// malloc_trim(0): free pages of every heap given back to the kernel. 1 when some were.
int dw_malloc_trim(void);

#endif
