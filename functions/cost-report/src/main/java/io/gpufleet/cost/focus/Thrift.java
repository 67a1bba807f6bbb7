package io.gpufleet.cost.focus;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The Thrift compact protocol, as far as a Parquet footer and page header need it: structs, i32,
 * i64, bool, binary and lists. Field ids are written as deltas from the previous field of the same
 * struct, so fields must be written in increasing id order within a struct.
 */
final class Thrift {
  static final int BOOL_TRUE = 1;
  static final int BOOL_FALSE = 2;
  static final int I32 = 5;
  static final int I64 = 6;
  static final int BINARY = 8;
  static final int LIST = 9;
  static final int STRUCT = 12;

  private final ByteArrayOutputStream out;
  private final int[] lastIds = new int[32];
  private int depth;
  private int last;

  Thrift(ByteArrayOutputStream out) {
    this.out = out;
  }

  private void header(int id, int type) {
    int delta = id - last;
    if (delta > 0 && delta <= 15) {
      out.write(delta << 4 | type);
    } else {
      out.write(type);
      varint(zigzag(id));
    }
    last = id;
  }

  Thrift i32(int id, int v) {
    header(id, I32);
    varint(zigzag(v));
    return this;
  }

  Thrift i64(int id, long v) {
    header(id, I64);
    varint(zigzag(v));
    return this;
  }

  Thrift bool(int id, boolean v) {
    header(id, v ? BOOL_TRUE : BOOL_FALSE);
    return this;
  }

  Thrift string(int id, String s) {
    header(id, BINARY);
    binary(s);
    return this;
  }

  /** A struct-valued field; close it with {@link #end()}. */
  Thrift struct(int id) {
    header(id, STRUCT);
    return push();
  }

  /** A list-valued field of {@code size} elements of {@code elementType}. */
  Thrift list(int id, int elementType, int size) {
    header(id, LIST);
    if (size < 15) {
      out.write(size << 4 | elementType);
    } else {
      out.write(0xF0 | elementType);
      varint(size);
    }
    return this;
  }

  /** A struct element of a list; close it with {@link #end()}. */
  Thrift element() {
    return push();
  }

  Thrift elementI32(int v) {
    varint(zigzag(v));
    return this;
  }

  Thrift elementString(String s) {
    binary(s);
    return this;
  }

  /** Ends the innermost struct (or the top-level message when none is open). */
  Thrift end() {
    out.write(0);
    if (depth > 0) {
      last = lastIds[--depth];
    }
    return this;
  }

  private Thrift push() {
    lastIds[depth++] = last;
    last = 0;
    return this;
  }

  private void binary(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    varint(b.length);
    out.write(b, 0, b.length);
  }

  private static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  private void varint(long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
