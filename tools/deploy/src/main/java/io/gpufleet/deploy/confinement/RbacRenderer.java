package io.gpufleet.deploy.confinement;

import io.gpufleet.deploy.confinement.ConfinementSpec.RbacObject;
import io.gpufleet.deploy.confinement.ConfinementSpec.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The RBAC objects of a spec's {@code rbac} entry, as manifest documents. */
final class RbacRenderer {
  private final String identity;

  RbacRenderer(String identity) {
    this.identity = identity;
  }

  Map<String, Object> render(RbacObject o) {
    var doc = new LinkedHashMap<String, Object>();
    doc.put("apiVersion", "rbac.authorization.k8s.io/v1");
    doc.put("kind", o.kind());
    var metadata = new LinkedHashMap<String, Object>();
    metadata.put("name", o.name());
    if (o.namespace() != null) {
      metadata.put("namespace", o.namespace());
    }
    var labels = new LinkedHashMap<String, Object>();
    labels.put("app.kubernetes.io/name", "gpufleet-" + identity);
    labels.put("app.kubernetes.io/part-of", "gpufleet-ops");
    metadata.put("labels", labels);
    doc.put("metadata", metadata);
    switch (o.kind()) {
      case "ClusterRole", "Role" -> {
        var rules = new ArrayList<Map<String, Object>>();
        for (Rule r : o.rules()) {
          var m = new LinkedHashMap<String, Object>();
          m.put("apiGroups", r.apiGroups());
          m.put("resources", r.resources());
          if (!r.resourceNames().isEmpty()) {
            m.put("resourceNames", r.resourceNames());
          }
          m.put("verbs", r.verbs());
          rules.add(m);
        }
        doc.put("rules", rules);
      }
      case "ClusterRoleBinding", "RoleBinding" -> {
        var ref = new LinkedHashMap<String, Object>();
        ref.put("apiGroup", "rbac.authorization.k8s.io");
        ref.put("kind", o.kind().equals("RoleBinding") ? "Role" : "ClusterRole");
        ref.put("name", o.role());
        doc.put("roleRef", ref);
        var subject = new LinkedHashMap<String, Object>();
        subject.put("apiGroup", "rbac.authorization.k8s.io");
        subject.put("kind", "Group");
        subject.put("name", o.group());
        doc.put("subjects", List.of(subject));
      }
      default -> throw new IllegalArgumentException("unknown RBAC kind " + o.kind());
    }
    return doc;
  }
}
