#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Fail if clang-format would change any C file: DPDK style, and rdma-core's
# for the provider (guest-driver/rdma-core/.clang-format, found by
# --style=file). The guest kernel module and the QEMU patch follow their own
# communities' styles and are
# checked by their own tools, not here; so do the uapi header
# (virtio-spec/include, kernel uapi style, included by the kernel module) and
# the files sparse compiles as kernel code (virtio-spec/tests/abi_kernel*).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(find backend guest-driver bench virtio-spec fuzz -name '*.[ch]' \
    -not -path 'guest-driver/linux/*' \
    -not -path 'virtio-spec/include/*' -not -path 'virtio-spec/tests/abi_kernel*' \
    2>/dev/null | sort)
[ ${#files[@]} -gt 0 ] || { echo "no C files found" >&2; exit 1; }
clang-format --dry-run -Werror --style=file "${files[@]}"
