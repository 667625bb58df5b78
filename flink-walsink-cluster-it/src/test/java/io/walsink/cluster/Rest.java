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

/** GETs on the JobManager's REST API, answers as JSON trees. */
final class Rest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    Rest(int port) {
        this.base = URI.create("http://localhost:" + port);
    }

    JsonNode get(String path) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(10))
                .GET()
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: GET " + path, e);
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
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
