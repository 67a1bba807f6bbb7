package io.gpufleet.core.json;

import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A CloudFormation/SAM template as plain maps and lists, its short-form intrinsic tags ({@code !Ref
 * X}, {@code !If [..]}, {@code !Sub ..}) read as their long-form maps ({@code {Ref: X}}, {@code
 * {Fn::If: [..]}}): what the template tier's readers (the Lambda runtime tier, the environment
 * reference) evaluate.
 */
public final class CfnYaml {
  private CfnYaml() {}

  /** The document's root mapping. */
  public static Map<String, Object> load(String text) {
    return new Yaml(new CfnConstructor()).load(text);
  }

  private static final class CfnConstructor extends SafeConstructor {
    CfnConstructor() {
      super(new LoaderOptions());
      this.yamlMultiConstructors.put("!", new Intrinsic());
    }

    private final class Intrinsic extends AbstractConstruct {
      @Override
      public Object construct(Node node) {
        String tag = node.getTag().getValue().substring(1);
        String key = tag.equals("Ref") || tag.equals("Condition") ? tag : "Fn::" + tag;
        Object value;
        if (node instanceof ScalarNode s) {
          value = constructScalar(s);
        } else if (node instanceof SequenceNode s) {
          value = constructSequence(s);
        } else {
          value = constructMapping((MappingNode) node);
        }
        return Map.of(key, value);
      }
    }
  }
}
