package io.gpufleet.core.aws;

import java.io.ByteArrayInputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * An XML answer of EC2 or of a query-protocol service ({@link AwsQuery}) as a tree of elements
 * (namespaces dropped; each API's are its own), read with the JDK's StAX reader with DTDs and
 * external entities off. Paths are element names joined by {@code /} below this element, e.g.
 * {@code reservationSet/item/instancesSet/item}: EC2 writes a list as a {@code ...Set} (or other)
 * element holding {@code item}s, the query protocol as an element holding {@code member}s.
 */
public final class Ec2Xml {
  private static final XMLInputFactory FACTORY = secureFactory();

  private final String name;
  private final List<Ec2Xml> children = new ArrayList<>();
  private String text = "";

  private Ec2Xml(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** The text of a leaf, trimmed ("" for an element with children or none). */
  public String text() {
    return text;
  }

  /** The text at {@code path}, or null when no such element exists. */
  public String text(String path) {
    var all = all(path);
    return all.isEmpty() ? null : all.get(0).text;
  }

  /** The integer at {@code path}, or null when absent or empty. */
  public Integer integer(String path) {
    String t = text(path);
    return t == null || t.isEmpty() ? null : Integer.valueOf(t);
  }

  /** The timestamp at {@code path} (EC2 writes ISO-8601 in UTC), or null when absent or empty. */
  public java.time.Instant instant(String path) {
    String t = text(path);
    return t == null || t.isEmpty() ? null : java.time.Instant.parse(t);
  }

  /** The element at {@code path}, or null. */
  public Ec2Xml child(String path) {
    var all = all(path);
    return all.isEmpty() ? null : all.get(0);
  }

  /** Every element at {@code path}, in document order. */
  public List<Ec2Xml> all(String path) {
    List<Ec2Xml> level = List.of(this);
    for (String step : path.split("/")) {
      var next = new ArrayList<Ec2Xml>();
      for (Ec2Xml e : level) {
        for (Ec2Xml c : e.children) {
          if (c.name.equals(step)) {
            next.add(c);
          }
        }
      }
      level = next;
    }
    return level;
  }

  /** The {@code item}s of the list element at {@code path}. */
  public List<Ec2Xml> items(String path) {
    return all(path + "/item");
  }

  /** The root element of an answer; a {@link Ec2QueryException} when it is not XML. */
  public static Ec2Xml parse(byte[] xml, String operation) {
    try {
      return read(xml);
    } catch (XMLStreamException | RuntimeException e) {
      throw new Ec2QueryException(operation, 200, "MalformedAnswer", e.getMessage(), e);
    }
  }

  /**
   * The error of a non-2xx answer: the code, message and request id at the given paths of the
   * service's error document ({@code Errors/Error}, {@code RequestID} for EC2; {@code Error},
   * {@code RequestId} for the query protocol), or {@code HTTP<status>} and the start of whatever
   * came when it is not such a document.
   */
  record Error(String code, String message, String requestId) {
    static Error of(int status, byte[] body, String errorPath, String requestIdPath) {
      Ec2Xml doc = null;
      try {
        doc = read(body);
      } catch (XMLStreamException | RuntimeException notXml) {
        // judged below
      }
      String code = doc == null ? null : doc.text(errorPath + "/Code");
      if (code == null || code.isEmpty()) {
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        return new Error("HTTP" + status, text.substring(0, Math.min(200, text.length())), null);
      }
      return new Error(code, doc.text(errorPath + "/Message"), doc.text(requestIdPath));
    }
  }

  /** The root element of an XML document; an exception when it is not one. */
  static Ec2Xml read(byte[] xml) throws XMLStreamException {
    Deque<Ec2Xml> open = new ArrayDeque<>();
    Ec2Xml root = null;
    var text = new StringBuilder();
    XMLStreamReader r;
    synchronized (FACTORY) {
      r = FACTORY.createXMLStreamReader(new ByteArrayInputStream(xml));
    }
    try {
      while (r.hasNext()) {
        switch (r.next()) {
          case XMLStreamReader.START_ELEMENT -> {
            var e = new Ec2Xml(r.getLocalName());
            if (open.isEmpty()) {
              root = e;
            } else {
              open.peekLast().children.add(e);
            }
            open.addLast(e);
            text.setLength(0);
          }
          case XMLStreamReader.CHARACTERS, XMLStreamReader.CDATA -> text.append(r.getText());
          case XMLStreamReader.END_ELEMENT -> {
            var e = open.removeLast();
            if (e.children.isEmpty()) {
              e.text = text.toString().trim();
            }
            text.setLength(0);
          }
          case XMLStreamReader.DTD, XMLStreamReader.ENTITY_REFERENCE ->
              throw new XMLStreamException("DTDs and entity references are refused");
          default -> {}
        }
      }
    } finally {
      r.close();
    }
    if (root == null) {
      throw new XMLStreamException("empty answer");
    }
    return root;
  }

  /**
   * Parses a small EC2 answer, so that a SnapStart snapshot taken after it holds the XML reader's
   * classes (priming: no I/O).
   */
  public static void prime() {
    parse(
        ("<DescribeRegionsResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                + "<requestId>prime</requestId><regionInfo><item><regionName>us-east-1"
                + "</regionName></item></regionInfo></DescribeRegionsResponse>")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8),
        "priming");
  }

  private static XMLInputFactory secureFactory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
    return f;
  }
}
