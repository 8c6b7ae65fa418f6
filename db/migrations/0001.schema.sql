-- The desk's own tables. Order isolation lives in the tool statements (toolbox/tools.yaml);
-- these constraints make bad writes impossible whatever a model asks for.

CREATE TABLE users (
    email         text PRIMARY KEY CHECK (email = lower(email) AND position('@' in email) > 1),
    full_name     text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE customer_orders (
    order_id         text PRIMARY KEY CHECK (order_id ~ '^ORD-[0-9]{5}$'),
    customer_email   text NOT NULL REFERENCES users (email),
    delivery_address text NOT NULL,
    status           text NOT NULL CHECK (status IN
                       ('processing', 'shipped', 'out for delivery', 'delivered', 'returned', 'cancelled')),
    items            jsonb NOT NULL CHECK (jsonb_typeof(items) = 'array'),
    order_date       timestamptz NOT NULL,
    total_amount     numeric(10, 2) NOT NULL CHECK (total_amount >= 0)
);
-- find-customer-orders: WHERE customer_email = $1 ORDER BY order_date DESC.
-- get-order-status and action-log look up by the primary key, then filter on the email.
CREATE INDEX customer_orders_email_date_idx ON customer_orders (customer_email, order_date DESC);

CREATE TABLE actions_log (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_email  text NOT NULL REFERENCES users (email),
    order_id        text NOT NULL REFERENCES customer_orders (order_id),
    action          text NOT NULL CHECK (action IN ('delivery_instruction', 'return_request', 'cancel_request')),
    payload         jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- A retried write carries the same key, so it can never land twice.
    idempotency_key text NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 16 AND 128)
);
CREATE INDEX actions_log_email_order_idx ON actions_log (customer_email, order_id);
