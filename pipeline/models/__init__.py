"""Language models of the desk: offline models, hosted adapters, prompts."""
