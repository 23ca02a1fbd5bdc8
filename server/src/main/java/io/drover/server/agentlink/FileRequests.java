package io.drover.server.agentlink;

import java.util.List;
import java.util.Map;

/** Salt's fileserver commands an agent sends ({@code _file_list}, {@code _file_hash}, {@code _serve_file}). */
public interface FileRequests {
    List<String> list(String prefix);

    Map<String, Object> hash(Object path);

    Map<String, Object> serve(Object path, Object loc);
}
