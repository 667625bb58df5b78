package io.walsink.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** GETs, POSTs and PATCHes on the JobManager's REST API, answers as JSON trees. */
final class Rest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    Rest(int port) {
        this.base = URI.create("http://localhost:" + port);
    }

    JsonNode get(String path) throws IOException {
        return send("GET " + path, HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    /** POST of a JSON body (asynchronous operations answer 202 with a request id). */
    JsonNode post(String path, Object body) throws IOException {
        return send(
                "POST " + path,
                HttpRequest.newBuilder(base.resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
    }

    /** PATCH without a body ({@code /jobs/ID?mode=cancel}). */
    JsonNode patch(String path) throws IOException {
        return send(
                "PATCH " + path,
                HttpRequest.newBuilder(base.resolve(path)).method("PATCH", HttpRequest.BodyPublishers.noBody()));
    }

    private JsonNode send(String what, HttpRequest.Builder builder) throws IOException {
        HttpRequest request = builder.timeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + what, e);
        }
        if (response.statusCode() != 200 && response.statusCode() != 202) {
            throw new IOException(what + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** Metric ids hold operator names, which may hold slashes and spaces. */
    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** One metric of a TaskManager; null while the JobManager has not fetched it yet. */
    Long taskManagerMetric(String taskManagerId, String metric) throws IOException {
        JsonNode values = get("/taskmanagers/" + taskManagerId + "/metrics?get=" + query(metric));
        return values.size() == 0
                ? null
                : Long.parseLong(values.get(0).get("value").asText());
    }
}
