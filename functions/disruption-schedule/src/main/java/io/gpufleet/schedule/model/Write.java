package io.gpufleet.schedule.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * One server-side apply: the managed {@code fields} to assert (a field left out is given up) and
 * gpufleet's own bookkeeping annotations (an empty map removes them).
 */
public record Write(ObjectRef ref, ObjectNode fields, Map<String, String> annotations) {}
