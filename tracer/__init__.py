"""tracer"""
