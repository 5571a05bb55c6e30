// Anonymous memory in pages of its own, advised to the kernel as huge pages (where transparent huge pages are
// "madvise" or "always"): a buffer of tens of megabytes then costs a few dozen page faults instead of thousands
// (docs/performance.md). For the C and the C++ shims.
#pragma once
#include <stddef.h>
#include <sys/mman.h>

/// The size of a huge page on x86-64 and arm64 (4 KB base pages).
#define FC_HUGE_PAGE ((size_t)2 << 20)

/// The smallest buffer worth its own mapping (8 MB): smaller ones keep the allocator's pages.
#define FC_HUGE_PAGES_MIN (4 * FC_HUGE_PAGE)

/// What `fc_map_huge_pages(size)` maps: whole huge pages.
static inline size_t fc_huge_pages_length(size_t size) { return (size + FC_HUGE_PAGE - 1) / FC_HUGE_PAGE * FC_HUGE_PAGE; }

/// At least `size` bytes, zeroed, or NULL; given back with `fc_unmap_huge_pages(start, size)`.
static inline void *fc_map_huge_pages(size_t size) {
    void *start = mmap(NULL, fc_huge_pages_length(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (start == MAP_FAILED) return NULL;
    madvise(start, fc_huge_pages_length(size), MADV_HUGEPAGE);
    return start;
}

static inline void fc_unmap_huge_pages(void *start, size_t size) { munmap(start, fc_huge_pages_length(size)); }
