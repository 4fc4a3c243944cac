// PNG's five row filters undone in place (internal to the C shim; see png_unfilter.c).
#ifndef LC_PNG_UNFILTER_H
#define LC_PNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/// Reverses `filter` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) on `row` in place, given the
/// previous row already unfiltered (all zeros for the first row) and whole pixels of `bpp`
/// bytes (1 to 4). Returns 0 for a filter type PNG does not define, 1 otherwise.
int lc_png_unfilter_row(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t rowbytes, unsigned bpp);

#endif
