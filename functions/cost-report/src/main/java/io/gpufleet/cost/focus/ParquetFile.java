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

  private final List<Column> columns;
  private final Codec codec;
  // the page being filled, per column
  private final ParquetBuffer[] values;
  private final ParquetBuffer[] levels;
  private final int[] levelRunValue;
  private final int[] levelRunLength;
  private final int[] pageRows;
  // the written pages (headers and compressed bodies), per column: the column chunks
  private final ParquetBuffer[] chunks;
  private final long[] uncompressed;
  private final long[] scratch;
  private final String[] lastString;
  private final byte[][] lastBytes;
  private final Deflater deflater;
  private final CRC32 crc = new CRC32();
  private ParquetBuffer body = new ParquetBuffer(PAGE_BYTES + 64);
  private ParquetBuffer packed = new ParquetBuffer(PAGE_BYTES / 4);
  private final ByteArrayOutputStream header = new ByteArrayOutputStream(32);
  private boolean written;
  private int rows;

  public ParquetFile(List<Column> columns, Codec codec) {
    this.columns = List.copyOf(columns);
    this.codec = codec;
    int n = columns.size();
    values = new ParquetBuffer[n];
    levels = new ParquetBuffer[n];
    chunks = new ParquetBuffer[n];
    levelRunValue = new int[n];
    levelRunLength = new int[n];
    pageRows = new int[n];
    uncompressed = new long[n];
    scratch = new long[n];
    lastString = new String[n];
    lastBytes = new byte[n][];
    for (int i = 0; i < n; i++) {
      values[i] = new ParquetBuffer(256);
      levels[i] = new ParquetBuffer(16);
      chunks[i] = new ParquetBuffer(256);
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
    ParquetBuffer stored = codec == Codec.UNCOMPRESSED ? body : gzip(body);
    header.reset();
    new Thrift(header)
        .i32(1, 0) // DATA_PAGE
        .i32(2, body.size)
        .i32(3, stored.size)
        .struct(5)
        .i32(1, pageRows[col])
        .i32(2, ParquetFooter.ENCODING_PLAIN)
        .i32(3, ParquetFooter.ENCODING_RLE)
        .i32(4, ParquetFooter.ENCODING_RLE)
        .end()
        .end();
    ParquetBuffer chunk = chunks[col];
    chunk.bytes(header.toByteArray());
    chunk.write(stored);
    uncompressed[col] += header.size() + (long) body.size;
    pageRows[col] = 0;
  }

  /** A GZIP member (RFC 1952) of the page body, in the reused {@code packed} buffer. */
  private ParquetBuffer gzip(ParquetBuffer in) {
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
    ParquetFooter.write(
        new Thrift(footer), columns, codec, rows, offsets, uncompressed, compressed);
    file.writeBytes(footer.toByteArray());
    int len = footer.size();
    file.write(len & 0xFF);
    file.write(len >>> 8 & 0xFF);
    file.write(len >>> 16 & 0xFF);
    file.write(len >>> 24 & 0xFF);
    file.write(MAGIC, 0, MAGIC.length);
    return file.toByteArray();
  }

  static List<String> names(List<Column> columns) {
    var out = new ArrayList<String>();
    columns.forEach(c -> out.add(c.name()));
    return out;
  }
}
