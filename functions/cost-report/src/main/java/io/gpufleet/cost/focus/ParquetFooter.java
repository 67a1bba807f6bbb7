package io.gpufleet.cost.focus;

import io.gpufleet.cost.focus.ParquetFile.Codec;
import io.gpufleet.cost.focus.ParquetFile.Column;
import io.gpufleet.cost.focus.ParquetFile.Kind;
import java.util.List;

/**
 * The Parquet footer ({@code FileMetaData}, Thrift compact): the flat schema with each column's
 * physical and logical type, and the one row group's column chunks (where each starts, its sizes,
 * codec and encodings). Also the format's type and encoding ids the page headers use.
 */
final class ParquetFooter {
  static final int TYPE_INT64 = 2;
  static final int TYPE_BYTE_ARRAY = 6;
  static final int ENCODING_PLAIN = 0;
  static final int ENCODING_RLE = 3;

  private ParquetFooter() {}

  /**
   * Writes the footer of a file of {@code rows} rows: {@code offsets}, {@code uncompressed} and
   * {@code compressed} give each column chunk's start in the file and its sizes (unused when the
   * file has no rows, and so no row group).
   */
  static void write(
      Thrift t,
      List<Column> columns,
      Codec codec,
      int rows,
      long[] offsets,
      long[] uncompressed,
      long[] compressed) {
    t.i32(1, 1); // version
    t.list(2, Thrift.STRUCT, columns.size() + 1);
    t.element().string(4, "schema").i32(5, columns.size()).end();
    for (Column c : columns) {
      schemaElement(t, c);
    }
    t.i64(3, rows);
    if (rows == 0) {
      t.list(4, Thrift.STRUCT, 0);
    } else {
      long total = 0;
      for (long u : uncompressed) {
        total += u;
      }
      t.list(4, Thrift.STRUCT, 1).element();
      t.list(1, Thrift.STRUCT, columns.size());
      for (int i = 0; i < columns.size(); i++) {
        Column c = columns.get(i);
        t.element().i64(2, offsets[i]).struct(3);
        t.i32(1, physicalType(c));
        t.list(2, Thrift.I32, 2).elementI32(ENCODING_PLAIN).elementI32(ENCODING_RLE);
        t.list(3, Thrift.BINARY, 1).elementString(c.name());
        t.i32(4, codec.id).i64(5, rows).i64(6, uncompressed[i]).i64(7, compressed[i]);
        t.i64(9, offsets[i]);
        t.end().end();
      }
      t.i64(2, total).i64(3, rows).end();
    }
    t.string(6, "gpufleet focus writer");
    t.end();
  }

  /** One column of the schema: physical type, repetition, name, converted and logical type. */
  private static void schemaElement(Thrift t, Column c) {
    t.element().i32(1, physicalType(c)).i32(3, c.required() ? 0 : 1);
    t.string(4, c.name());
    switch (c.kind()) {
      case STRING -> t.i32(6, 0).struct(10).struct(1).end().end(); // UTF8, STRING
      case JSON -> t.i32(6, 19).struct(10).struct(12).end().end(); // JSON, JSON
      case DECIMAL ->
          t.i32(6, 5)
              .i32(7, ParquetFile.SCALE)
              .i32(8, ParquetFile.PRECISION)
              .struct(10)
              .struct(5)
              .i32(1, ParquetFile.SCALE)
              .i32(2, ParquetFile.PRECISION)
              .end()
              .end();
      case TIMESTAMP ->
          // TIMESTAMP_MICROS; TIMESTAMP(isAdjustedToUTC=true, unit=MICROS)
          t.i32(6, 10)
              .struct(10)
              .struct(8)
              .bool(1, true)
              .struct(2)
              .struct(2)
              .end()
              .end()
              .end()
              .end();
    }
    t.end();
  }

  private static int physicalType(Column c) {
    return c.kind() == Kind.STRING || c.kind() == Kind.JSON ? TYPE_BYTE_ARRAY : TYPE_INT64;
  }
}
