#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The ELF kernel inside a bzImage, as the kernel's scripts/extract-vmlinux
finds it: the payload's compressed stream (xz for Debian 12's 6.1, zstd for
Debian unstable's 7.2), decompressed, taken when it is an ELF.

    qemu-test/extract-vmlinux.py BZIMAGE OUT

build-image.sh keeps it beside vmlinuz: with CONFIG_PVH the ELF has a PVH
entry, and QEMU starts it with no decompression in the guest (seconds of
TCG per boot for xz). Exit 1 when no stream gives an ELF.
"""
import lzma
import subprocess
import sys

ELF = b'\x7fELF'


def xz(data):
    try:
        return lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(data)
    except lzma.LZMAError:
        return b''


def zstd(data):
    # The stream is followed by the rest of the bzImage: zstd says so on
    # stderr and exits non-zero after writing the frame.
    r = subprocess.run(['zstd', '-dcq'], input=data, capture_output=True, check=False)
    return r.stdout


FORMATS = ((b'\xfd7zXZ\x00', xz), (b'\x28\xb5\x2f\xfd', zstd))


def extract(image):
    for magic, decompress in FORMATS:
        at = image.find(magic)
        # the magic may also occur by chance: the first few occurrences
        for _ in range(8):
            if at < 0:
                break
            out = decompress(image[at:])
            if out.startswith(ELF):
                return out
            at = image.find(magic, at + 1)
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    with open(sys.argv[1], 'rb') as f:
        vmlinux = extract(f.read())
    if vmlinux is None:
        sys.exit(f'extract-vmlinux: no xz or zstd stream in {sys.argv[1]} gives an ELF')
    with open(sys.argv[2], 'wb') as f:
        f.write(vmlinux)


if __name__ == '__main__':
    main()
