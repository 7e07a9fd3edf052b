package dev.ateom.microvm.http;

import dev.ateom.microvm.json.ApiJson;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.webserver.http.ServerRequest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/** Reads JSON request bodies with a hard size limit and turns parse errors into 400s that name the field. */
public final class RequestBodies {
    private final long maxBytes;

    public RequestBodies(long maxBytes) { this.maxBytes = maxBytes; }

    public <T> T readJson(ServerRequest req, Class<T> type) {
        byte[] body = readBounded(req);
        if (body.length == 0) throw ApiException.badRequest("request body is empty; a JSON object is expected");
        return parse(() -> ApiJson.mapper().readValue(body, type));
    }

    /** As {@link #readJson}, but an absent body is {@code whenEmpty} (for requests whose body is optional). */
    public <T> T readOptionalJson(ServerRequest req, Class<T> type, T whenEmpty) {
        byte[] body = readBounded(req);
        if (body.length == 0) return whenEmpty;
        return parse(() -> ApiJson.mapper().readValue(body, type));
    }

    /** A body read as a tree, turned into {@code type} with the same field-naming errors as {@link #readJson}. */
    public <T> T convert(JsonNode body, Class<T> type) {
        return parse(() -> ApiJson.mapper().treeToValue(body, type));
    }

    /** One Jackson read. */
    private interface JsonRead<T> {
        T read() throws IOException;
    }

    private static <T> T parse(JsonRead<T> jsonRead) {
        try {
            T value = jsonRead.read();
            if (value == null) throw ApiException.badRequest("request body is 'null'; a JSON object is expected");
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw invalidField(fieldPath(e), "unknown field '" + e.getPropertyName() + "'");
        } catch (InvalidFormatException e) {
            throw invalidField(fieldPath(e), "cannot read value '" + e.getValue() + "' as " + e.getTargetType().getSimpleName());
        } catch (MismatchedInputException e) {
            throw invalidField(fieldPath(e), e.getOriginalMessage());
        } catch (JsonMappingException e) {
            Throwable root = e.getCause() != null ? e.getCause() : e;
            // a duplicate key inside an object the mapper was reading: the path leads to that object
            String duplicate = root instanceof StreamReadException read ? duplicateName(read) : null;
            if (duplicate != null) {
                String parent = fieldPath(e);
                throw invalidField(parent.isEmpty() ? duplicate : parent + "." + duplicate, "is given more than once");
            }
            throw invalidField(fieldPath(e), root instanceof ApiException api ? api.detail() : e.getOriginalMessage());
        } catch (StreamReadException e) {
            String duplicate = duplicateKey(e);
            if (duplicate != null) throw invalidField(duplicate, "is given more than once");
            throw ApiException.badRequest("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] readBounded(ServerRequest req) {
        if (!req.content().hasEntity()) return new byte[0];
        try (InputStream in = req.content().inputStream()) {
            byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (body.length > maxBytes) {
                throw new ApiException(413, "request-too-large", "Request body too large",
                        "body exceeds the limit of " + maxBytes + " bytes");
            }
            return body;
        } catch (IOException e) {
            throw ApiException.badRequest("cannot read request body: " + e.getMessage());
        }
    }

    /** The path of a key given twice at the top level of the body, or null when {@code e} is another syntax error. */
    private static String duplicateKey(StreamReadException e) {
        String name = duplicateName(e);
        if (name == null) return null;
        String pointer = e.getProcessor() instanceof JsonParser parser ? parser.getParsingContext().pathAsPointer().toString() : "";
        return pointer.isEmpty() || pointer.equals("/" + name) ? name : pointer.substring(1).replace('/', '.');
    }

    /** The key Jackson's duplicate detection found ({@code Duplicate field 'vcpus'}), or null for any other error. */
    private static String duplicateName(StreamReadException e) {
        String message = e.getOriginalMessage();
        if (message == null || !message.startsWith("Duplicate field '")) return null;
        int end = message.indexOf('\'', "Duplicate field '".length());
        return end < 0 ? null : message.substring("Duplicate field '".length(), end);
    }

    private static ApiException invalidField(String field, String reason) {
        return ApiException.invalidFields(List.of(new Problem.FieldError(field.isEmpty() ? "body" : field, reason)));
    }

    /** {@code volumes[0].sources[1].path}, from Jackson's reference chain. */
    static String fieldPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (!path.isEmpty()) path.append('.');
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }
}
