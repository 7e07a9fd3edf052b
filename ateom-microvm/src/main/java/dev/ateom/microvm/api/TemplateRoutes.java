package dev.ateom.microvm.api;

import dev.ateom.microvm.http.ApiException;
import dev.ateom.microvm.http.Problem;
import dev.ateom.microvm.http.RequestBodies;
import dev.ateom.microvm.http.Responses;
import dev.ateom.microvm.http.RouteTable;
import dev.ateom.microvm.template.TemplateException;
import dev.ateom.microvm.template.TemplateRequest;
import dev.ateom.microvm.template.TemplateService;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.ServerRequest;

import java.util.List;
import java.util.Map;

/** {@code /v1/templates}: build a template from a spec (a named snapshot of the booted, healthy guest), list, delete. */
public final class TemplateRoutes extends RouteTable {
    private final TemplateService templates;
    private final RequestBodies bodies;

    public TemplateRoutes(TemplateService templates, RequestBodies bodies) {
        this.templates = templates;
        this.bodies = bodies;
    }

    @Override
    public void routing(HttpRules rules) {
        routes(rules).post("/v1/templates", mapped((req, res) ->
                        Responses.json(res, 201, templates.create(bodies.readJson(req, TemplateRequest.class)))))
                .get("/v1/templates", mapped((req, res) -> Responses.json(res, 200, Map.of("items", templates.list()))))
                .get("/v1/templates/{name}", mapped((req, res) -> Responses.json(res, 200, templates.require(name(req)))))
                .delete("/v1/templates/{name}", mapped((req, res) -> {
                    templates.delete(name(req), QueryFlags.flag(req, "force"));
                    res.status(204).send();
                }));
    }

    private static String name(ServerRequest req) { return req.path().pathParameters().get("name"); }

    /** The handler, with template failures as problem documents of their status. */
    private static Handler mapped(Handler handler) {
        return (req, res) -> {
            try {
                handler.handle(req, res);
            } catch (TemplateException e) {
                throw problem(e);
            }
        };
    }

    static ApiException problem(TemplateException e) {
        return switch (e.kind()) {
            case INVALID -> ApiException.invalidFields(List.of(new Problem.FieldError(e.field(), e.getMessage())));
            case NOT_FOUND -> new ApiException(404, "template-not-found", "No such template", e.getMessage());
            case TAKEN -> new ApiException(409, "template-name-taken", "The name is taken", e.getMessage());
            case IN_USE -> new ApiException(409, "template-in-use", "The template has sandboxes", e.getMessage());
            case NOT_READY -> new ApiException(504, "template-guest-not-ready", "The guest did not become healthy", e.getMessage());
        };
    }
}
