/* pgpage's page dumper: `pgpage page` over many blocks (text and NDJSON) and `--hex`.
 *
 * Compiled into the same shared library as _heapscan.c (setup.py, kernels.py: the library's stamp is the
 * SHA-256 over both sources). Plain C99, no Python.h; every offset comes from the layout array built from
 * decode/ksy/layouts.py, as in _heapscan.c. The ctypes wrappers are in decode/pagedump.py.
 */
#include <stdint.h>
#include <stddef.h>

/* the version of this file's interface, checked by decode/pagedump.py */
int64_t pgp_pagedump_version(void) { return 1; }
