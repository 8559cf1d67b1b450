"""fcbench.models"""
