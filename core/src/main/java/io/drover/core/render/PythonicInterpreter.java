package io.drover.core.render;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.InterpreterFactory;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;

/** An interpreter that prints values as Jinja2 does: {@code True}, {@code False}, {@code None}. */
final class PythonicInterpreter extends JinjavaInterpreter {
    /** Makes every interpreter Jinjava creates (macros, child scopes) a pythonic one. */
    static final InterpreterFactory FACTORY = new InterpreterFactory() {
        @Override
        public JinjavaInterpreter newInstance(JinjavaInterpreter parent) {
            return new PythonicInterpreter(parent);
        }

        @Override
        public JinjavaInterpreter newInstance(Jinjava jinjava, Context context, JinjavaConfig config) {
            return new PythonicInterpreter(jinjava, context, config);
        }
    };

    PythonicInterpreter(Jinjava jinjava, Context context, JinjavaConfig config) {
        super(jinjava, context, config);
    }

    private PythonicInterpreter(JinjavaInterpreter parent) {
        super(parent);
    }

    @Override
    public String getAsString(Object value) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Integer || value instanceof Long) {
            return value.toString();
        }
        if (value instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (value == PyNone.NONE) {
            return "None";
        }
        return super.getAsString(value);
    }
}
