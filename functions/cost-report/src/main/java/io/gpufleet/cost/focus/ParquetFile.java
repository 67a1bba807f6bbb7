package io.gpufleet.cost.focus;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * A small Parquet writer: flat schema, one row group, data pages (v1) of at most {@link
 * #PAGE_BYTES} raw bytes each, PLAIN values, RLE definition levels, pages GZIP-compressed (or not).
 * A page is compressed as soon as it is full, so what the writer holds is the compressed column
 * chunks plus one raw page per column, not the whole file's raw values. No Hadoop, no parquet-mr:
 * the Lambda jar keeps its size budget. Types: UTF-8 strings (STRING or JSON logical type),
 * decimals as INT64 DECIMAL(18, 6), instants as INT64 TIMESTAMP(MICROS, UTC), doubles. Read back by
 * DuckDB in the tests; Athena (Trino) reads the same physical and logical types.
 */
public final class ParquetFile {
  /** Decimal columns: DECIMAL(PRECISION, SCALE) on INT64. */
  public static final int SCALE = 6;

  public static final int PRECISION = 18;

  /** A column's page is written once its raw values reach this size. */
  static final int PAGE_BYTES = 128 * 1024;

  public enum Kind {
    STRING,
    JSON,
    DECIMAL,
    TIMESTAMP
  }

  /** One column: a required column rejects nulls, an optional one writes definition levels. */
  public record Column(String name, Kind kind, boolean required) {}

  public enum Codec {
    UNCOMPRESSED(0),
    GZIP(2);

    final int id;

    Codec(int id) {
      this.id = id;
    }
  }

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
  private static final int TYPE_INT64 = 2;
  private static final int TYPE_BYTE_ARRAY = 6;
  private static final int ENCODING_PLAIN = 0;
  private static final int ENCODING_RLE = 3;

  private final List<Column> columns;
  private final Codec codec;
  // the page being filled, per column
  private final Buffer[] values;
  private final Buffer[] levels;
  private final int[] levelRunValue;
  private final int[] levelRunLength;
  private final int[] pageRows;
  // the written pages (headers and compressed bodies), per column: the column chunks
  private final Buffer[] chunks;
  private final long[] uncompressed;
  private final long[] scratch;
  private final String[] lastString;
  private final byte[][] lastBytes;
  private final Deflater deflater;
  private final CRC32 crc = new CRC32();
  private Buffer body = new Buffer(PAGE_BYTES + 64);
  private Buffer packed = new Buffer(PAGE_BYTES / 4);
  private final ByteArrayOutputStream header = new ByteArrayOutputStream(32);
  private boolean written;
  private int rows;

  public ParquetFile(List<Column> columns, Codec codec) {
    this.columns = List.copyOf(columns);
    this.codec = codec;
    int n = columns.size();
    values = new Buffer[n];
    levels = new Buffer[n];
    chunks = new Buffer[n];
    levelRunValue = new int[n];
    levelRunLength = new int[n];
    pageRows = new int[n];
    uncompressed = new long[n];
    scratch = new long[n];
    lastString = new String[n];
    lastBytes = new byte[n][];
    for (int i = 0; i < n; i++) {
      values[i] = new Buffer(256);
      levels[i] = new Buffer(16);
      chunks[i] = new Buffer(256);
    }
    deflater = codec == Codec.GZIP ? new Deflater(Deflater.BEST_SPEED, true) : null;
  }

  public List<Column> columns() {
    return columns;
  }

  public int rows() {
    return rows;
  }

  /**
   * Appends a row: one value per column, in order (String for STRING/JSON, BigDecimal or Double for
   * DECIMAL, Instant for TIMESTAMP, null where the column is optional).
   */
  public void add(Object... row) {
    if (written) {
      throw new IllegalStateException("the file was already written");
    }
    if (row.length != columns.size()) {
      throw new IllegalArgumentException(
          "row has " + row.length + " values for " + columns.size() + " columns");
    }
    // check and convert the whole row first, so a bad value leaves the file as it was
    for (int i = 0; i < row.length; i++) {
      Column c = columns.get(i);
      Object v = row[i];
      check(c, v);
      if (v != null) {
        switch (c.kind()) {
          case STRING, JSON -> {}
          case DECIMAL -> scratch[i] = unscaled(v);
          case TIMESTAMP -> {
            Instant t = (Instant) v;
            scratch[i] =
                Math.addExact(
                    Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
          }
        }
      }
    }
    for (int i = 0; i < row.length; i++) {
      Column c = columns.get(i);
      Object v = row[i];
      if (!c.required()) {
        level(i, v == null ? 0 : 1);
      }
      if (v != null) {
        switch (c.kind()) {
          case STRING, JSON -> values[i].binary(utf8(i, (String) v));
          case DECIMAL, TIMESTAMP -> values[i].int64(scratch[i]);
        }
      }
      pageRows[i]++;
      if (values[i].size >= PAGE_BYTES) {
        page(i);
      }
    }
    rows++;
  }

  /** A column's values repeat (cluster, currency, pool...): the same string is encoded once. */
  private byte[] utf8(int col, String v) {
    if (!v.equals(lastString[col])) {
      lastString[col] = v;
      lastBytes[col] = v.getBytes(StandardCharsets.UTF_8);
    }
    return lastBytes[col];
  }

  private static void check(Column c, Object v) {
    if (v == null) {
      if (c.required()) {
        throw new IllegalArgumentException("column " + c.name() + " is required but null");
      }
      return;
    }
    boolean ok =
        switch (c.kind()) {
          case STRING, JSON -> v instanceof String;
          case DECIMAL -> v instanceof BigDecimal || v instanceof Double;
          case TIMESTAMP -> v instanceof Instant;
        };
    if (!ok) {
      throw new IllegalArgumentException(
          "column " + c.name() + " (" + c.kind() + ") cannot hold " + v.getClass().getSimpleName());
    }
  }

  private static long unscaled(Object v) {
    if (v instanceof Double x) {
      // The fast path gives what BigDecimal.valueOf(x) rounded HALF_EVEN gives: below 1e12 the
      // scaled double is within 1e-3 of the scaled decimal, so away from a half it rounds alike.
      double scaled = x * 1e6;
      double frac = scaled - Math.floor(scaled);
      if (Math.abs(scaled) < 1e12 && Math.abs(frac - 0.5) > 0.01) {
        return Math.round(scaled);
      }
    }
    BigDecimal d = v instanceof BigDecimal b ? b : BigDecimal.valueOf((Double) v);
    try {
      return d.setScale(SCALE, RoundingMode.HALF_EVEN).unscaledValue().longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(d + " does not fit DECIMAL(18, 6)", e);
    }
  }

  // definition levels, run-length encoded as they come (RLE/bit-packing hybrid, bit width 1)
  private void level(int col, int v) {
    if (levelRunLength[col] > 0 && levelRunValue[col] != v) {
      flushRun(col);
    }
    levelRunValue[col] = v;
    levelRunLength[col]++;
  }

  private void flushRun(int col) {
    if (levelRunLength[col] > 0) {
      levels[col].varint((long) levelRunLength[col] << 1);
      levels[col].write(levelRunValue[col]);
      levelRunLength[col] = 0;
    }
  }

  /**
   * Writes the column's filling page into its chunk: header, then the definition levels (with their
   * length) and the values, compressed by the codec.
   */
  private void page(int col) {
    if (pageRows[col] == 0) {
      return;
    }
    Column c = columns.get(col);
    body.size = 0;
    if (!c.required()) {
      flushRun(col);
      body.int32(levels[col].size);
      body.write(levels[col]);
      levels[col].size = 0;
    }
    body.write(values[col]);
    values[col].size = 0;
    Buffer stored = codec == Codec.UNCOMPRESSED ? body : gzip(body);
    header.reset();
    new Thrift(header)
        .i32(1, 0) // DATA_PAGE
        .i32(2, body.size)
        .i32(3, stored.size)
        .struct(5)
        .i32(1, pageRows[col])
        .i32(2, ENCODING_PLAIN)
        .i32(3, ENCODING_RLE)
        .i32(4, ENCODING_RLE)
        .end()
        .end();
    Buffer chunk = chunks[col];
    chunk.bytes(header.toByteArray());
    chunk.write(stored);
    uncompressed[col] += header.size() + (long) body.size;
    pageRows[col] = 0;
  }

  /** A GZIP member (RFC 1952) of the page body, in the reused {@code packed} buffer. */
  private Buffer gzip(Buffer in) {
    packed.size = 0;
    // magic, deflate, no flags, no mtime, no extra flags, unknown OS
    packed.bytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
    deflater.reset();
    deflater.setInput(in.data, 0, in.size);
    deflater.finish();
    while (!deflater.finished()) {
      packed.ensure(Math.max(4096, in.size / 8));
      packed.size += deflater.deflate(packed.data, packed.size, packed.data.length - packed.size);
    }
    crc.reset();
    crc.update(in.data, 0, in.size);
    packed.int32((int) crc.getValue());
    packed.int32(in.size);
    return packed;
  }

  /** The whole file; the writer's buffers are released (call it once). */
  public byte[] bytes() {
    if (written) {
      throw new IllegalStateException("the file was already written");
    }
    written = true;
    long chunkBytes = 0;
    if (rows > 0) {
      for (int i = 0; i < columns.size(); i++) {
        page(i);
        chunkBytes += chunks[i].size;
      }
    }
    java.util.Arrays.fill(values, null);
    java.util.Arrays.fill(levels, null);
    body = null;
    packed = null;
    if (deflater != null) {
      deflater.end();
    }
    var file =
        new ByteArrayOutputStream(
            (int) Math.min(64 + columns.size() * 128L + chunkBytes, Integer.MAX_VALUE - 1024));
    file.write(MAGIC, 0, MAGIC.length);
    long[] offsets = new long[columns.size()];
    long[] compressed = new long[columns.size()];
    if (rows > 0) {
      for (int i = 0; i < columns.size(); i++) {
        offsets[i] = file.size();
        compressed[i] = chunks[i].size;
        file.write(chunks[i].data, 0, chunks[i].size);
        chunks[i] = null;
      }
    }
    var footer = new ByteArrayOutputStream(512 + columns.size() * 96);
    footer(new Thrift(footer), offsets, uncompressed, compressed);
    file.writeBytes(footer.toByteArray());
    int len = footer.size();
    file.write(len & 0xFF);
    file.write(len >>> 8 & 0xFF);
    file.write(len >>> 16 & 0xFF);
    file.write(len >>> 24 & 0xFF);
    file.write(MAGIC, 0, MAGIC.length);
    return file.toByteArray();
  }

  private void footer(Thrift t, long[] offsets, long[] uncompressed, long[] compressed) {
    t.i32(1, 1); // version
    t.list(2, Thrift.STRUCT, columns.size() + 1);
    t.element().string(4, "schema").i32(5, columns.size()).end();
    for (Column c : columns) {
      boolean binary = c.kind() == Kind.STRING || c.kind() == Kind.JSON;
      t.element().i32(1, binary ? TYPE_BYTE_ARRAY : TYPE_INT64).i32(3, c.required() ? 0 : 1);
      t.string(4, c.name());
      switch (c.kind()) {
        case STRING -> t.i32(6, 0).struct(10).struct(1).end().end(); // UTF8, STRING
        case JSON -> t.i32(6, 19).struct(10).struct(12).end().end(); // JSON, JSON
        case DECIMAL ->
            t.i32(6, 5)
                .i32(7, SCALE)
                .i32(8, PRECISION)
                .struct(10)
                .struct(5)
                .i32(1, SCALE)
                .i32(2, PRECISION)
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
        boolean binary = c.kind() == Kind.STRING || c.kind() == Kind.JSON;
        t.element().i64(2, offsets[i]).struct(3);
        t.i32(1, binary ? TYPE_BYTE_ARRAY : TYPE_INT64);
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

  /** A growable little-endian byte buffer. */
  private static final class Buffer {
    byte[] data;
    int size;

    Buffer(int capacity) {
      data = new byte[capacity];
    }

    private void ensure(int more) {
      if (size + more > data.length) {
        data = java.util.Arrays.copyOf(data, Math.max(data.length * 2, size + more));
      }
    }

    void write(int b) {
      ensure(1);
      data[size++] = (byte) b;
    }

    void write(Buffer other) {
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

    void binary(byte[] b) {
      int32(b.length);
      bytes(b);
    }

    void varint(long v) {
      while ((v & ~0x7FL) != 0) {
        write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      write((int) v);
    }
  }

  static List<String> names(List<Column> columns) {
    var out = new ArrayList<String>();
    columns.forEach(c -> out.add(c.name()));
    return out;
  }
}
