package dev.ateom.e2b;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The body of {@code POST /sandboxes} (and {@code /v2/sandboxes}), read field by field: every field the SDK sends is
 * either mapped or refused with a 400 naming it, never dropped in silence (null counts as absent, as the SDK omits
 * what is unset).
 */
record CreateRequest(String templateID, int timeoutSeconds, boolean autoPause, boolean autoResume, Map<String, String> metadata,
                     Map<String, String> envVars, boolean secure, Boolean allowInternetAccess, List<String> allowOut,
                     List<String> denyOut) {
    /** E2B's default lifetime when the request names none. */
    static final int DEFAULT_TIMEOUT_SECONDS = 15;
    static final int MAX_TIMEOUT_SECONDS = 86_400;
    private static final Set<String> FIELDS = Set.of("templateID", "timeout", "autoPause", "autoPauseMemory", "autoResume", "metadata",
            "envVars", "secure", "allow_internet_access", "network", "mcp", "iam", "volumeMounts");

    static CreateRequest parse(JsonNode body) {
        if (body == null || !body.isObject()) throw E2bError.badRequest("the body must be a JSON object");
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) throw E2bError.badRequest("unknown field '" + name + "'");
        }
        String template = text(body, "templateID");
        if (template == null || template.isBlank()) throw E2bError.badRequest("templateID is required");
        int timeout = timeout(body.get("timeout"));
        refuseUnless(body, "mcp", "MCP servers are not supported by ateom");
        refuseUnless(body, "iam", "iam is not supported by ateom");
        JsonNode volumes = body.get("volumeMounts");
        if (volumes != null && !volumes.isNull() && !(volumes.isArray() && volumes.isEmpty())) {
            throw E2bError.badRequest("volumeMounts: volumes are not supported by ateom");
        }
        JsonNode memory = body.get("autoPauseMemory");
        if (memory != null && !memory.isNull() && !(memory.isBoolean() && memory.booleanValue())) {
            throw E2bError.badRequest("autoPauseMemory: ateom always keeps memory when it pauses (false is not supported)");
        }
        boolean autoPause = bool(body, "autoPause", false);
        boolean autoResume = false;
        JsonNode resume = body.get("autoResume");
        if (resume != null && !resume.isNull()) {
            if (!resume.isObject()) throw E2bError.badRequest("autoResume must be an object {\"enabled\": bool}");
            autoResume = bool(resume, "enabled", false);
        }
        if (autoResume && !autoPause) throw E2bError.badRequest("autoResume needs autoPause");
        List<String> allowOut = null;
        List<String> denyOut = null;
        JsonNode network = body.get("network");
        if (network != null && !network.isNull()) {
            if (!network.isObject()) throw E2bError.badRequest("network must be an object");
            for (Iterator<Map.Entry<String, JsonNode>> fields = network.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                switch (field.getKey()) {
                    case "allowOut" -> allowOut = cidrs(field.getValue(), "network.allowOut");
                    case "denyOut" -> denyOut = cidrs(field.getValue(), "network.denyOut");
                    default -> {
                        if (!field.getValue().isNull()) {
                            throw E2bError.badRequest("network." + field.getKey() + " is not supported by ateom (only allowOut and denyOut)");
                        }
                    }
                }
            }
        }
        JsonNode internet = body.get("allow_internet_access");
        Boolean allowInternet = internet == null || internet.isNull() ? null : bool(body, "allow_internet_access", true);
        return new CreateRequest(template, timeout, autoPause, autoResume, stringMap(body, "metadata"), stringMap(body, "envVars"),
                bool(body, "secure", false), allowInternet, allowOut, denyOut);
    }

    /** Seconds of {@code timeout} in a body ({@code /timeout}, {@code /connect}, {@code /resume}); absent: the default. */
    static int timeout(JsonNode node) {
        if (node == null || node.isNull()) return DEFAULT_TIMEOUT_SECONDS;
        if (!node.isIntegralNumber()) throw E2bError.badRequest("timeout must be a whole number of seconds");
        long seconds = node.longValue();
        if (seconds < 0 || seconds > MAX_TIMEOUT_SECONDS) throw E2bError.badRequest("timeout must be 0-" + MAX_TIMEOUT_SECONDS + " seconds");
        return (int) seconds;
    }

    private static void refuseUnless(JsonNode body, String field, String message) {
        JsonNode value = body.get(field);
        if (value != null && !value.isNull() && !(value.isObject() && value.isEmpty())) throw E2bError.badRequest(field + ": " + message);
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) return null;
        if (!value.isTextual()) throw E2bError.badRequest(field + " must be a string");
        return value.textValue();
    }

    private static boolean bool(JsonNode body, String field, boolean absent) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) return absent;
        if (!value.isBoolean()) throw E2bError.badRequest(field + " must be true or false");
        return value.booleanValue();
    }

    private static Map<String, String> stringMap(JsonNode body, String field) {
        JsonNode value = body.get(field);
        Map<String, String> out = new LinkedHashMap<>();
        if (value == null || value.isNull()) return out;
        if (!value.isObject()) throw E2bError.badRequest(field + " must be an object of strings");
        for (Iterator<Map.Entry<String, JsonNode>> fields = value.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = fields.next();
            if (!entry.getValue().isTextual()) throw E2bError.badRequest(field + "." + entry.getKey() + " must be a string");
            out.put(entry.getKey(), entry.getValue().textValue());
        }
        return out;
    }

    /** IPv4 addresses or CIDRs only: a domain name is a 400, since the egress policy filters addresses. */
    private static List<String> cidrs(JsonNode value, String field) {
        if (value.isNull()) return null;
        if (!value.isArray()) throw E2bError.badRequest(field + " must be an array of IPv4 CIDRs");
        List<String> out = new ArrayList<>();
        for (JsonNode item : value) {
            String text = item.isTextual() ? item.textValue() : "";
            if (!text.matches("\\d{1,3}(\\.\\d{1,3}){3}(/\\d{1,2})?")) {
                throw E2bError.badRequest(field + ": '" + item.asText() + "' is not an IPv4 address or CIDR (ateom's egress filters "
                        + "addresses, not domain names)");
            }
            out.add(text.contains("/") ? text : text + "/32");
        }
        return out;
    }
}
