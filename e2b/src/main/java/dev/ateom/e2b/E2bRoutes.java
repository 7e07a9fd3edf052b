package dev.ateom.e2b;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ateom.microvm.json.ApiJson;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** E2B's sandbox API, paths and field names as the SDK ({@code e2b@2.51.0}) sends and reads them. */
final class E2bRoutes implements HttpService {
    static final int MAX_BODY_BYTES = 1 << 20;
    private static final int DEFAULT_LIMIT = 100;
    private static final int MAX_LIMIT = 1000;

    private final E2bService service;

    E2bRoutes(E2bService service) { this.service = service; }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/sandboxes", this::create)
                .post("/v2/sandboxes", this::create)
                .get("/sandboxes", this::listV1)
                .get("/v2/sandboxes", this::listV2)
                .get("/sandboxes/{id}", (req, res) -> json(res, 200, E2bViews.detail(service.require(id(req)))))
                .delete("/sandboxes/{id}", (req, res) -> {
                    service.kill(id(req));
                    res.status(204).send();
                })
                .post("/sandboxes/{id}/timeout", (req, res) -> {
                    JsonNode body = body(req, true);
                    if (!body.has("timeout")) throw E2bError.badRequest("timeout is required");
                    onlyFields(body, "timeout");
                    service.setTimeout(id(req), CreateRequest.timeout(body.get("timeout")));
                    res.status(204).send();
                })
                .post("/sandboxes/{id}/refreshes", (req, res) -> {
                    JsonNode body = body(req, false);
                    onlyFields(body, "duration");
                    service.refresh(id(req), CreateRequest.timeout(body.get("duration")));
                    res.status(204).send();
                })
                .post("/sandboxes/{id}/pause", (req, res) -> {
                    JsonNode body = body(req, false);
                    onlyFields(body, "memory");
                    JsonNode memory = body.get("memory");
                    if (memory != null && !memory.isNull() && !memory.equals(ApiJson.mapper().getNodeFactory().booleanNode(true))) {
                        throw E2bError.badRequest("memory: ateom always keeps memory when it pauses (false is not supported)");
                    }
                    service.pause(id(req));
                    res.status(204).send();
                })
                .post("/sandboxes/{id}/resume", (req, res) -> {
                    JsonNode body = body(req, false);
                    onlyFields(body, "timeout", "autoPause");
                    json(res, 201, E2bViews.created(service.resume(id(req), CreateRequest.timeout(body.get("timeout")))));
                })
                .post("/sandboxes/{id}/connect", this::connect)
                .post("/v2/sandboxes/{id}/connect", this::connect)
                .get("/templates", (req, res) -> {
                    ArrayNode items = ApiJson.mapper().createArrayNode();
                    service.templates().forEach(t -> items.add(E2bViews.template(t)));
                    json(res, 200, items);
                })
                .any((req, res) -> {
                    throw E2bError.notFound(req.prologue().method().text() + " " + req.path().path() + " is not part of ateom's E2B API");
                });
    }

    private void create(ServerRequest req, ServerResponse res) {
        json(res, 201, E2bViews.created(service.create(CreateRequest.parse(body(req, true)))));
    }

    private void connect(ServerRequest req, ServerResponse res) {
        JsonNode body = body(req, false);
        onlyFields(body, "timeout", "memory");
        JsonNode memory = body.get("memory");
        if (memory != null && !memory.isNull() && !memory.asBoolean(true)) {
            throw E2bError.badRequest("memory: false (onResume 'reboot') is not supported by ateom");
        }
        String id = id(req);
        boolean wasPaused = service.require(id).paused();
        json(res, wasPaused ? 201 : 200, E2bViews.created(service.connect(id, CreateRequest.timeout(body.get("timeout")))));
    }

    /** v1: the running sandboxes, optionally filtered by metadata; no pagination. */
    private void listV1(ServerRequest req, ServerResponse res) {
        Map<String, String> metadata = metadataFilter(req);
        ArrayNode items = ApiJson.mapper().createArrayNode();
        sorted().stream().filter(c -> !c.paused() && matches(c, metadata)).forEach(c -> items.add(E2bViews.detail(c)));
        json(res, 200, items);
    }

    /** v2: {@code state} (running, paused; comma-separated or repeated), {@code metadata}, {@code limit} and {@code nextToken}. */
    private void listV2(ServerRequest req, ServerResponse res) {
        Map<String, String> metadata = metadataFilter(req);
        Set<String> states = new HashSet<>();
        if (req.query().contains("state")) {
            for (String value : req.query().all("state")) {
                for (String state : value.split(",")) {
                    String s = state.strip();
                    if (!s.equals("running") && !s.equals("paused")) throw E2bError.badRequest("state: '" + s + "' is not running or paused");
                    states.add(s);
                }
            }
        }
        int limit = intParam(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
        int offset = intParam(req, "nextToken", 0, 0, Integer.MAX_VALUE);
        List<E2bService.Current> matching = sorted().stream()
                .filter(c -> states.isEmpty() || states.contains(c.paused() ? "paused" : "running"))
                .filter(c -> matches(c, metadata)).toList();
        ArrayNode items = ApiJson.mapper().createArrayNode();
        matching.stream().skip(offset).limit(limit).forEach(c -> items.add(E2bViews.detail(c)));
        if (offset + limit < matching.size()) res.header("X-Next-Token", String.valueOf(offset + limit));
        json(res, 200, items);
    }

    private List<E2bService.Current> sorted() {
        List<E2bService.Current> all = new ArrayList<>(service.all());
        all.sort(Comparator.comparing((E2bService.Current c) -> c.sandbox().startedAt()).thenComparing(c -> c.sandbox().sandboxID()));
        return all;
    }

    private static boolean matches(E2bService.Current current, Map<String, String> metadata) {
        return metadata.entrySet().stream().allMatch(e -> e.getValue().equals(current.sandbox().metadata().get(e.getKey())));
    }

    /** {@code metadata=k%3Dv%26k2%3Dv2}: the SDK encodes each key and value, joins them as a query string and sends that as one value. */
    private static Map<String, String> metadataFilter(ServerRequest req) {
        Map<String, String> out = new LinkedHashMap<>();
        if (!req.query().contains("metadata")) return out;
        for (String value : req.query().all("metadata")) {
            for (String pair : value.split("&")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                if (eq <= 0) throw E2bError.badRequest("metadata: '" + pair + "' is not key=value");
                out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static int intParam(ServerRequest req, String name, int absent, int min, int max) {
        if (!req.query().contains(name)) return absent;
        try {
            int value = Integer.parseInt(req.query().get(name));
            if (value < min || value > max) throw E2bError.badRequest(name + " must be " + min + "-" + max);
            return value;
        } catch (NumberFormatException e) {
            throw E2bError.badRequest(name + ": '" + req.query().get(name) + "' is not a number");
        }
    }

    private static void onlyFields(JsonNode body, String... allowed) {
        Set<String> known = new HashSet<>(Arrays.asList(allowed));
        body.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) throw E2bError.badRequest("unknown field '" + name + "'");
        });
    }

    /** The JSON object of the body; empty (when optional) is {@code {}}; malformed JSON or another type is a 400. */
    private static JsonNode body(ServerRequest req, boolean required) {
        byte[] bytes;
        try (InputStream in = req.content().inputStream()) {
            bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            throw E2bError.badRequest("cannot read the body: " + e.getMessage());
        }
        if (bytes.length > MAX_BODY_BYTES) throw new E2bError(413, "the body is larger than " + MAX_BODY_BYTES + " bytes");
        if (bytes.length == 0) {
            if (required) throw E2bError.badRequest("a JSON body is required");
            return ApiJson.mapper().createObjectNode();
        }
        JsonNode node;
        try {
            node = ApiJson.mapper().readTree(bytes);
        } catch (JsonProcessingException e) {
            throw E2bError.badRequest("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw E2bError.badRequest("cannot read the body: " + e.getMessage());
        }
        if (node == null || !node.isObject()) throw E2bError.badRequest("the body must be a JSON object");
        return node;
    }

    private static String id(ServerRequest req) { return req.path().pathParameters().get("id"); }

    static void json(ServerResponse res, int status, JsonNode body) {
        res.status(status);
        res.header("Content-Type", "application/json");
        res.send(body.toString().getBytes(StandardCharsets.UTF_8));
    }
}
