package io.gpufleet.cost.focus;

import java.util.Arrays;

/**
 * A growable little-endian byte buffer: a column's raw page (values, definition levels), a page
 * body, its GZIP member and the column chunks of {@link ParquetFile}. Its fields are open to the
 * writer, which resets {@code size} to reuse a buffer and reads {@code data} to copy one out.
 */
final class ParquetBuffer {
  byte[] data;
  int size;

  ParquetBuffer(int capacity) {
    data = new byte[capacity];
  }

  /** Room for {@code more} bytes past {@code size}, doubling the array when it is short. */
  void ensure(int more) {
    if (size + more > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, size + more));
    }
  }

  void write(int b) {
    ensure(1);
    data[size++] = (byte) b;
  }

  void write(ParquetBuffer other) {
    ensure(other.size);
    System.arraycopy(other.data, 0, data, size, other.size);
    size += other.size;
  }

  void int32(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      data[size++] = (byte) (v >>> (8 * i));
    }
  }

  void int64(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      data[size++] = (byte) (v >>> (8 * i));
    }
  }

  void bytes(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, data, size, b.length);
    size += b.length;
  }

  /** A PLAIN BYTE_ARRAY value: its length, then its bytes. */
  void binary(byte[] b) {
    int32(b.length);
    bytes(b);
  }

  /** An unsigned LEB128 varint (the RLE run headers of definition levels). */
  void varint(long v) {
    while ((v & ~0x7FL) != 0) {
      write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    write((int) v);
  }
}
