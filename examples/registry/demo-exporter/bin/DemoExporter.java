import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Serves the concatenated files of a config directory at / on the given port. */
public class DemoExporter {
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        Path etc = Path.of(args[1]);
        HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
        server.createContext("/", exchange -> {
            String body;
            try (Stream<Path> files = Files.list(etc)) {
                body = files.sorted().map(DemoExporter::read).collect(Collectors.joining());
            }
            byte[] bytes = body.getBytes();
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        Files.writeString(Path.of("ready"), Integer.toString(port));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
