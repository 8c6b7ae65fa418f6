-- depends: 0004.login
-- More request kinds, some items of an order, and a payload whose shape the database checks
-- (issue 15). Still only requests recorded for staff: nothing here updates or deletes an order.
-- Which order statuses allow which action is data in pipeline/agent/action_policy.yaml; the
-- desk checks it when it proposes and again when the customer confirms.

ALTER TABLE actions_log DROP CONSTRAINT actions_log_action_check;
ALTER TABLE actions_log ADD CONSTRAINT actions_log_action_check CHECK (action IN
    ('delivery_instruction', 'return_request', 'cancel_request', 'exchange_request', 'address_change'));

-- The items concerned, by name as the order lists them; NULL means the whole order.
ALTER TABLE actions_log ADD COLUMN items jsonb
    CHECK (items IS NULL OR (jsonb_typeof(items) = 'array' AND jsonb_array_length(items) BETWEEN 1 AND 20));

ALTER TABLE actions_log ADD CONSTRAINT actions_log_payload_shape CHECK (
    jsonb_typeof(payload) = 'object'
    -- An exchange names the item(s) and what they become; an address change names the new address
    -- and is about the whole order; other kinds carry neither.
    AND (action <> 'exchange_request' OR (items IS NOT NULL AND length(coalesce(payload->>'new_item', '')) > 0))
    AND (action <> 'address_change' OR (items IS NULL AND length(coalesce(payload->>'new_address', '')) > 0))
    AND (action IN ('exchange_request') OR NOT payload ? 'new_item')
    AND (action IN ('address_change') OR NOT payload ? 'new_address')
    AND (action IN ('exchange_request', 'return_request', 'cancel_request') OR items IS NULL)
);
