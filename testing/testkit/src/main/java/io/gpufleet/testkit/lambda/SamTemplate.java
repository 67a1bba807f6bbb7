package io.gpufleet.testkit.lambda;

import io.gpufleet.core.json.CfnYaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SAM template read the way CloudFormation evaluates what a function gets: {@code Globals} merged
 * under the function's properties, parameters (given values or their defaults), conditions and the
 * intrinsic functions the template uses for environment variables ({@code Ref}, {@code Fn::If},
 * {@code Fn::Sub}, {@code Fn::GetAtt}, {@code Fn::Select}, {@code Fn::Split}, {@code Fn::Join},
 * {@code Fn::Equals}, {@code Fn::Not}, {@code Fn::And}, {@code Fn::Or}). Anything it cannot resolve
 * fails with the path of the value, so a template change cannot slip past the Lambda runtime tier
 * unread.
 */
public final class SamTemplate {
  private static final Object NO_VALUE = new Object();
  private static final Pattern SUB = Pattern.compile("\\$\\{([^}!][^}]*)}");

  private final Path path;
  private final Map<String, Object> root;

  private SamTemplate(Path path, Map<String, Object> root) {
    this.path = path;
    this.root = root;
  }

  /** What one function gets from the template, resolved for one stack. */
  public record Function(
      String logicalId,
      String functionName,
      String runtime,
      String handler,
      int memoryMb,
      int timeoutSeconds,
      boolean snapStart,
      Map<String, String> environment) {}

  /**
   * The stack a test deploys: parameter values (others take their defaults), physical ids of the
   * resources the environment refers to ({@code Ref} of a bucket, {@code Fn::GetAtt} as
   * "Resource.Attribute"), and the pseudo parameters.
   */
  public record Stack(
      String name,
      String region,
      String accountId,
      Map<String, String> parameters,
      Map<String, String> resources) {
    public Stack {
      parameters = Map.copyOf(parameters);
      resources = Map.copyOf(resources);
    }
  }

  /** The project's template.yaml, at the repository root above the working directory. */
  public static Path projectTemplate() {
    return RuntimeTier.repositoryRoot().resolve("template.yaml");
  }

  /** The text of {@link #projectTemplate()}. */
  public static String projectTemplateText() {
    try {
      return Files.readString(projectTemplate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot read template.yaml: " + e.getMessage(), e);
    }
  }

  public static SamTemplate load(Path path) {
    try {
      return new SamTemplate(path, CfnYaml.load(Files.readString(path)));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  /** The template's own text, for tests that change a copy of it. */
  public Path path() {
    return path;
  }

  public Function function(String logicalId, Stack stack) {
    Map<String, Object> resources = map(root.get("Resources"), "Resources");
    Map<String, Object> resource = map(resources.get(logicalId), "Resources." + logicalId);
    if (!"AWS::Serverless::Function".equals(resource.get("Type"))) {
      throw new IllegalArgumentException(
          path + ": " + logicalId + " is not an AWS::Serverless::Function");
    }
    Map<String, Object> props = map(resource.get("Properties"), logicalId + ".Properties");
    Map<String, Object> globals =
        root.get("Globals") == null
            ? Map.of()
            : map(map(root.get("Globals"), "Globals").getOrDefault("Function", Map.of()), "G");
    var eval = new Evaluator(stack);
    String where = logicalId + ".Properties.";
    Object handler = eval.value(pick(props, globals, "Handler"), where + "Handler");
    Object runtime = eval.value(pick(props, globals, "Runtime"), where + "Runtime");
    Object memory = eval.value(pick(props, globals, "MemorySize"), where + "MemorySize");
    Object timeout = eval.value(pick(props, globals, "Timeout"), where + "Timeout");
    Object name = eval.value(props.get("FunctionName"), where + "FunctionName");
    Object snap = pick(props, globals, "SnapStart");
    boolean snapStart =
        snap instanceof Map<?, ?> m && "PublishedVersions".equals(eval.value(m.get("ApplyOn"), ""));

    var env = new LinkedHashMap<String, String>();
    for (var source : List.of(globals, props)) {
      Object e = source.get("Environment");
      if (e == null) {
        continue;
      }
      Object vars = map(e, where + "Environment").get("Variables");
      if (vars == null) {
        continue;
      }
      for (var entry : map(vars, where + "Environment.Variables").entrySet()) {
        Object v = eval.value(entry.getValue(), where + "Environment.Variables." + entry.getKey());
        if (v == NO_VALUE) {
          env.remove(entry.getKey());
        } else {
          env.put(entry.getKey(), scalar(v, entry.getKey()));
        }
      }
    }
    return new Function(
        logicalId,
        name == null ? stack.name() + "-" + logicalId : scalar(name, "FunctionName"),
        runtime == null ? null : scalar(runtime, "Runtime"),
        handler == null ? null : scalar(handler, "Handler"),
        memory == null ? 128 : Integer.parseInt(scalar(memory, "MemorySize")),
        timeout == null ? 3 : Integer.parseInt(scalar(timeout, "Timeout")),
        snapStart,
        Map.copyOf(env));
  }

  private static Object pick(Map<String, Object> props, Map<String, Object> globals, String key) {
    return props.containsKey(key) ? props.get(key) : globals.get(key);
  }

  private String scalar(Object v, String what) {
    if (v instanceof String || v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    throw new IllegalStateException(path + ": " + what + " is not a scalar: " + v);
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> map(Object o, String what) {
    if (o instanceof Map<?, ?> m) {
      return (Map<String, Object>) m;
    }
    throw new IllegalStateException(path + ": " + what + " is not a mapping");
  }

  private final class Evaluator {
    private final Stack stack;
    private final Map<String, Boolean> conditions = new LinkedHashMap<>();

    Evaluator(Stack stack) {
      this.stack = stack;
    }

    Object value(Object v, String where) {
      if (v instanceof Map<?, ?> m && m.size() == 1) {
        var e = m.entrySet().iterator().next();
        String fn = String.valueOf(e.getKey());
        Object arg = e.getValue();
        switch (fn) {
          case "Ref":
            return ref(String.valueOf(arg), where);
          case "Fn::If":
            {
              List<?> a = list(arg, where, 3);
              return condition(String.valueOf(a.get(0)), where)
                  ? value(a.get(1), where)
                  : value(a.get(2), where);
            }
          case "Fn::Sub":
            return sub(arg, where);
          case "Fn::GetAtt":
            {
              String att =
                  arg instanceof List<?> l ? l.get(0) + "." + l.get(1) : String.valueOf(arg);
              return resource(att, where);
            }
          case "Fn::Select":
            {
              List<?> a = list(arg, where, 2);
              int i = Integer.parseInt(String.valueOf(value(a.get(0), where)));
              return list(value(a.get(1), where), where, -1).get(i);
            }
          case "Fn::Split":
            {
              List<?> a = list(arg, where, 2);
              String s = String.valueOf(value(a.get(1), where));
              return List.of(s.split(Pattern.quote(String.valueOf(a.get(0))), -1));
            }
          case "Fn::Join":
            {
              List<?> a = list(arg, where, 2);
              var parts = new ArrayList<String>();
              for (Object p : list(value(a.get(1), where), where, -1)) {
                parts.add(String.valueOf(value(p, where)));
              }
              return String.join(String.valueOf(a.get(0)), parts);
            }
          case "Fn::Equals":
            {
              List<?> a = list(arg, where, 2);
              return String.valueOf(value(a.get(0), where))
                  .equals(String.valueOf(value(a.get(1), where)));
            }
          case "Fn::Not":
            return !truth(list(arg, where, 1).get(0), where);
          case "Fn::And":
            return list(arg, where, -1).stream().allMatch(c -> truth(c, where));
          case "Fn::Or":
            return list(arg, where, -1).stream().anyMatch(c -> truth(c, where));
          case "Condition":
            return condition(String.valueOf(arg), where);
          default:
            if (fn.startsWith("Fn::")) {
              throw new IllegalStateException(path + ": " + where + ": " + fn + " not supported");
            }
        }
      }
      if (v instanceof List<?> l) {
        var out = new ArrayList<Object>();
        for (Object o : l) {
          out.add(value(o, where));
        }
        return out;
      }
      return v;
    }

    private boolean truth(Object v, String where) {
      Object r = value(v, where);
      if (r instanceof Boolean b) {
        return b;
      }
      throw new IllegalStateException(path + ": " + where + ": not a condition: " + v);
    }

    boolean condition(String name, String where) {
      Boolean known = conditions.get(name);
      if (known != null) {
        return known;
      }
      Object def =
          root.get("Conditions") == null ? null : map(root.get("Conditions"), "C").get(name);
      if (def == null) {
        throw new IllegalStateException(path + ": " + where + ": no condition " + name);
      }
      boolean result = truth(def, "Conditions." + name);
      conditions.put(name, result);
      return result;
    }

    private Object ref(String name, String where) {
      switch (name) {
        case "AWS::NoValue":
          return NO_VALUE;
        case "AWS::StackName":
          return stack.name();
        case "AWS::Region":
          return stack.region();
        case "AWS::AccountId":
          return stack.accountId();
        case "AWS::Partition":
          return stack.region().startsWith("cn-")
              ? "aws-cn"
              : stack.region().startsWith("us-gov-") ? "aws-us-gov" : "aws";
        case "AWS::URLSuffix":
          return stack.region().startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
        default:
          break;
      }
      Object params = root.get("Parameters");
      if (params != null && map(params, "Parameters").containsKey(name)) {
        Map<String, Object> param = map(map(params, "Parameters").get(name), "Parameters." + name);
        String type = String.valueOf(param.get("Type"));
        if (stack.parameters().containsKey(name)) {
          String given = stack.parameters().get(name);
          return type.startsWith("List<") || type.equals("CommaDelimitedList")
              ? (given.isEmpty() ? List.of() : List.of(given.split(",", -1)))
              : given;
        }
        Object def = param.get("Default");
        if (def instanceof String d
            && (type.startsWith("List<") || type.equals("CommaDelimitedList"))) {
          return d.isEmpty() ? List.of() : List.of(d.split(",", -1));
        }
        if (def == null) {
          throw new IllegalStateException(
              path + ": " + where + ": parameter " + name + " has no default and no given value");
        }
        return def instanceof List<?> l ? l : String.valueOf(def);
      }
      return resource(name, where);
    }

    private Object resource(String id, String where) {
      String value = stack.resources().get(id);
      if (value == null) {
        throw new IllegalStateException(
            path + ": " + where + " refers to " + id + ": give the stack its physical value");
      }
      return value;
    }

    private Object sub(Object arg, String where) {
      String text;
      Map<?, ?> vars = Map.of();
      if (arg instanceof List<?> l) {
        text = String.valueOf(l.get(0));
        vars = (Map<?, ?>) l.get(1);
      } else {
        text = String.valueOf(arg);
      }
      Matcher m = SUB.matcher(text);
      var out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        Object v;
        if (vars.containsKey(name)) {
          v = value(vars.get(name), where);
        } else if (name.contains(".")) {
          v = resource(name, where);
        } else {
          v = ref(name, where);
        }
        m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(v)));
      }
      m.appendTail(out);
      return out.toString();
    }

    private List<?> list(Object o, String where, int size) {
      if (o instanceof List<?> l && (size < 0 || l.size() == size)) {
        return l;
      }
      throw new IllegalStateException(path + ": " + where + ": expected a list: " + o);
    }
  }
}
