package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.document.Document;
import software.amazon.awssdk.core.util.SdkAutoConstructList;
import software.amazon.awssdk.core.util.SdkAutoConstructMap;

/**
 * A typed SDK request as a tree keyed by the service model's member names ({@link
 * SdkField#memberName()}, e.g. {@code RegionNames}, not the wire's {@code RegionName.1}): what the
 * marshaller will put on the wire, before it is put there. Members the caller never set (null, or
 * the SDK's auto-constructed empty collections) are absent, as they are on the wire.
 */
public final class SdkRequestTree {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private SdkRequestTree() {}

  /**
   * @param dropEmptyLists true for EC2's protocol, which sends nothing for an empty list
   */
  public static ObjectNode of(SdkPojo pojo, boolean dropEmptyLists) {
    ObjectNode out = NODES.objectNode();
    for (SdkField<?> field : pojo.sdkFields()) {
      Object value = field.getValueOrDefault(pojo);
      JsonNode node = node(value, dropEmptyLists);
      if (node != null) {
        out.set(field.memberName(), node);
      }
    }
    return out;
  }

  private static JsonNode node(Object value, boolean dropEmptyLists) {
    if (value == null
        || value instanceof SdkAutoConstructList<?>
        || value instanceof SdkAutoConstructMap<?, ?>) {
      return null;
    }
    return switch (value) {
      case SdkPojo p -> of(p, dropEmptyLists);
      case List<?> list -> {
        if (list.isEmpty() && dropEmptyLists) {
          yield null;
        }
        ArrayNode a = NODES.arrayNode();
        for (Object o : list) {
          JsonNode n = node(o, dropEmptyLists);
          a.add(n == null ? NODES.nullNode() : n);
        }
        yield a;
      }
      case Map<?, ?> map -> {
        ObjectNode o = NODES.objectNode();
        map.forEach(
            (k, v) -> {
              JsonNode n = node(v, dropEmptyLists);
              o.set(String.valueOf(k), n == null ? NODES.nullNode() : n);
            });
        yield o;
      }
      case String s -> NODES.textNode(s);
      case Boolean b -> NODES.booleanNode(b);
      case Integer i -> NODES.numberNode(i);
      case Long l -> NODES.numberNode(l);
      case Short s -> NODES.numberNode(s);
      case Byte b -> NODES.numberNode(b);
      case Double d -> NODES.numberNode(d);
      case Float f -> NODES.numberNode(f);
      case BigDecimal d -> NODES.numberNode(d);
      case Instant t -> NODES.textNode(t.toString());
      case SdkBytes bytes -> NODES.binaryNode(bytes.asByteArrayUnsafe());
      case Document d -> NODES.textNode(String.valueOf(d));
      default -> NODES.textNode(String.valueOf(value));
    };
  }
}
